/** Maven coordinates of a file in the standard layout: `group/path/artifact/version/artifact-version[-classifier].ext`. */
export interface MavenCoords {
  groupId: string;
  artifactId: string;
  version: string;
  classifier: string;
  extension: string;
}

export function mavenCoords(path: string): MavenCoords | null {
  const parts = path.split('/');
  if (parts.length < 4) return null;
  const file = parts[parts.length - 1]!;
  const version = parts[parts.length - 2]!;
  const artifactId = parts[parts.length - 3]!;
  const groupId = parts.slice(0, -3).join('.');
  // SNAPSHOT files carry a timestamp instead of "SNAPSHOT" in their names.
  const base = version.endsWith('-SNAPSHOT') ? version.slice(0, -'SNAPSHOT'.length) : version;
  const prefix = `${artifactId}-${base}`;
  if (!file.startsWith(prefix) || /\.(sha1|sha256|sha512|md5|asc)$/.test(file) || file.startsWith('maven-metadata')) return null;
  let rest = file.slice(prefix.length);
  if (version.endsWith('-SNAPSHOT')) rest = rest.replace(/^(SNAPSHOT|\d{8}\.\d{6}-\d+)/, '');
  const m = /^(?:-([^.]+))?\.(.+)$/.exec(rest);
  if (!m) return null;
  return { groupId, artifactId, version, classifier: m[1] ?? '', extension: m[2]! };
}

/** Dependency declarations for a jar-like artifact (not for POMs or module metadata). */
export function dependencySnippets(c: MavenCoords): { title: string; lang: string; code: string }[] {
  if (c.extension === 'pom' || c.extension === 'module') return [];
  const gav = [c.groupId, c.artifactId, c.version].join(':') + (c.classifier ? `:${c.classifier}` : '') + (c.extension !== 'jar' ? `@${c.extension}` : '');
  const maven = [
    '<dependency>',
    `  <groupId>${c.groupId}</groupId>`,
    `  <artifactId>${c.artifactId}</artifactId>`,
    `  <version>${c.version}</version>`,
    ...(c.classifier ? [`  <classifier>${c.classifier}</classifier>`] : []),
    ...(c.extension !== 'jar' ? [`  <type>${c.extension}</type>`] : []),
    '</dependency>',
  ].join('\n');
  return [
    { title: 'Gradle (Kotlin DSL)', lang: 'kotlin', code: `implementation("${gav}")` },
    { title: 'Maven', lang: 'xml', code: maven },
  ];
}
