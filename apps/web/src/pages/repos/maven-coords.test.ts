import { describe, expect, it } from 'vitest';
import { dependencySnippets, mavenCoords } from './maven-coords';

describe('mavenCoords', () => {
  it('reads group, artifact, version, classifier and extension from the layout', () => {
    expect(mavenCoords('org/acme/widget/1.0.0/widget-1.0.0.jar')).toEqual({ groupId: 'org.acme', artifactId: 'widget', version: '1.0.0', classifier: '', extension: 'jar' });
    expect(mavenCoords('org/acme/widget/1.0.0/widget-1.0.0-sources.jar')?.classifier).toBe('sources');
    expect(mavenCoords('org/acme/widget/1.0.0/widget-1.0.0.tar.gz')?.extension).toBe('tar.gz');
  });

  it('reads timestamped SNAPSHOT files', () => {
    expect(mavenCoords('org/acme/widget/1.1-SNAPSHOT/widget-1.1-20261123.120000-3.jar')).toMatchObject({ version: '1.1-SNAPSHOT', classifier: '', extension: 'jar' });
  });

  it('ignores checksums, metadata and paths outside the layout', () => {
    expect(mavenCoords('org/acme/widget/1.0.0/widget-1.0.0.jar.sha1')).toBeNull();
    expect(mavenCoords('org/acme/widget/maven-metadata.xml')).toBeNull();
    expect(mavenCoords('widget.jar')).toBeNull();
  });

  it('writes dependency declarations for jars but not for POMs', () => {
    const c = mavenCoords('org/acme/widget/1.0.0/widget-1.0.0.jar')!;
    expect(dependencySnippets(c)[0]!.code).toBe('implementation("org.acme:widget:1.0.0")');
    expect(dependencySnippets(mavenCoords('org/acme/widget/1.0.0/widget-1.0.0.pom')!)).toEqual([]);
  });
});
