import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { gradle, mavenPublishEnabled, removeTempDirs, run, tempDir, writeFile } from './clients.js';
import { mavenServer } from './server.js';

/**
 * Real clients against a real server: Debian's mvn (through the shared client recipes) and
 * Gradle 4.4.1. Independent scenarios run concurrently (each is a chain of JVM runs), which
 * keeps the file well under two minutes on two cores.
 */
/** A chain of JVM runs on a shared two-core machine. */
const LONG = 240_000;
let s: TestServer;
let work: string;
const url = (repo: string) => `${s.url}/maven/${repo}`;
const paths = async (repo: string, prefix: string, auth?: string) => {
  const r = await fetch(`${s.url}/api/repos/${repo}/assets?limit=200&prefix=${encodeURIComponent(prefix)}`, auth ? { headers: { Authorization: auth } } : {});
  return ((await r.json()).items as { path: string }[]).map((i) => i.path);
};
const jar = (name: string, text: string) => writeFile(work, name, `${text}\n`); // content is opaque to Maven

beforeAll(async () => {
  s = await mavenServer();
  work = tempDir('trove-maven-clients-');
});
afterAll(async () => {
  await s?.close();
  removeTempDirs();
});

describe('maven format with Debian mvn', () => {
  it.concurrent('deploys a jar + pom release, resolves it with checksumPolicy=fail, refuses a changed redeploy with 409 and resolves a version range', async () => {
    const one = jar('lib-1.0.jar', 'lib one');
    let r = await run('maven-deploy.sh', [url('releases'), 'ci', 'pub-releases', 'org.acme', 'lib', '1.0', one]);
    expect(r.code, r.output).toBe(0);
    expect(await paths('releases', 'org/acme/lib/')).toEqual(
      expect.arrayContaining(['org/acme/lib/1.0/lib-1.0.jar', 'org/acme/lib/1.0/lib-1.0.pom', 'org/acme/lib/maven-metadata.xml']),
    );
    const out = tempDir('trove-out-');
    const [resolved, redeploy] = await Promise.all([
      run('maven-resolve.sh', [url('releases'), 'org.acme:lib:1.0', out], { CHECKSUM_POLICY: 'fail' }),
      run('maven-deploy.sh', [url('releases'), 'ci', 'pub-releases', 'org.acme', 'lib', '1.0', jar('lib-1.0-changed.jar', 'lib one, changed')]),
    ]);
    expect(resolved.code, resolved.output).toBe(0);
    expect(readFileSync(resolved.stdout.trim(), 'utf8')).toBe('lib one\n');
    expect(redeploy.code).not.toBe(0);
    expect(redeploy.output).toMatch(/409/);

    r = await run('maven-deploy.sh', [url('releases'), 'ci', 'pub-releases', 'org.acme', 'lib', '1.1', jar('lib-1.1.jar', 'lib one point one')]);
    expect(r.code, r.output).toBe(0);
    r = await run('maven-resolve.sh', [url('releases'), 'org.acme:lib:[1.0,2.0)', tempDir('trove-out-')]);
    expect(r.code, r.output).toBe(0);
    expect(readFileSync(r.stdout.trim(), 'utf8')).toBe('lib one point one\n');
  }, LONG);

  it.concurrent('deploys a SNAPSHOT twice with timestamps and resolves the newest build', async () => {
    for (const text of ['snapshot build one', 'snapshot build two']) {
      const r = await run('maven-deploy.sh', [url('releases'), 'ci', 'pub-releases', 'org.acme', 'snap', '2.0-SNAPSHOT', jar(`snap-${text.length}-${Date.now()}.jar`, text)]);
      expect(r.code, r.output).toBe(0);
    }
    const jars = (await paths('releases', 'org/acme/snap/2.0-SNAPSHOT/')).filter((p) => p.endsWith('.jar'));
    expect(jars).toHaveLength(2);
    for (const j of jars) expect(j).toMatch(/snap-2\.0-\d{8}\.\d{6}-[12]\.jar$/);
    const r = await run('maven-resolve.sh', [url('releases'), 'org.acme:snap:2.0-SNAPSHOT', tempDir('trove-out-')], { CHECKSUM_POLICY: 'fail' });
    expect(r.code, r.output).toBe(0);
    expect(r.stdout.trim()).toMatch(/snap-2\.0-SNAPSHOT\.jar$/);
    expect(readFileSync(r.stdout.trim(), 'utf8')).toBe('snapshot build two\n');
  }, LONG);

  it.concurrent('deploys to and resolves from a private repository through the 401 challenge', async () => {
    let r = await run('maven-deploy.sh', [url('private'), 'ci', 'pub-private', 'org.acme', 'secret', '1.0', jar('secret-1.0.jar', 'private bytes')]);
    expect(r.code, r.output).toBe(0);
    r = await run('maven-deploy.sh', [url('private'), 'ci', 'pub-private', 'org.acme', 'secret', '1.1-SNAPSHOT', jar('secret-1.1.jar', 'private snapshot')]);
    expect(r.code, r.output).toBe(0); // the snapshot deploy's first GET is anonymous and must be challenged
    const [anon, alice] = await Promise.all([
      run('maven-resolve.sh', [url('private'), 'org.acme:secret:1.0', tempDir('trove-out-')]),
      run('maven-resolve.sh', [url('private'), 'org.acme:secret:1.0', tempDir('trove-out-'), 'alice', 'alice']),
    ]);
    expect(anon.code).not.toBe(0);
    expect(anon.output).toMatch(/401/);
    expect(alice.code, alice.output).toBe(0);
    expect(readFileSync(alice.stdout.trim(), 'utf8')).toBe('private bytes\n');
  }, LONG);
});

describe('maven format: Maven usage snippets', () => {
  it.concurrent('deploys and resolves with the settings.xml and distributionManagement snippets as written', async () => {
    const usage = await (await fetch(`${s.url}/api/repos/private/usage`, { headers: { Authorization: 'Basic ' + Buffer.from('x:alice').toString('base64') } })).json();
    const snippet = (title: string) => usage.snippets.find((x: { title: string }) => x.title.startsWith(title)).code as string;
    const dir = tempDir('trove-mvn-snippet-');
    // Only additions for this offline machine: a throwaway local repository, and Maven's own plugins
    // from Debian's packages (every repository but the snippet's own).
    const settings = snippet('Maven: ~/.m2/settings.xml').replace(
      '<settings>',
      `<settings>\n  <localRepository>${dir}/m2</localRepository>\n  <mirrors><mirror><id>debian</id><mirrorOf>*,!trove-private</mirrorOf><url>file:///usr/share/maven-repo</url></mirror></mirrors>`,
    );
    writeFile(dir, 'settings.xml', settings);
    mkdirSync(join(dir, 'project'));
    writeFile(
      join(dir, 'project'),
      'pom.xml',
      `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>org.acme.snippet</groupId><artifactId>mvnsnippet</artifactId><version>1.0</version><packaging>pom</packaging>
${snippet('Maven: pom.xml distributionManagement')}
</project>
`,
    );
    const env = { TROVE_USER: 'alice', TROVE_TOKEN: 'alice', TROVE_PUBLISH_TOKEN: 'pub-private' };
    const mvn = (cwd: string, args: string[]) =>
      new Promise<{ code: number; output: string }>((done) =>
        execFile('mvn', ['-B', '-Dstyle.color=never', '-s', join(dir, 'settings.xml'), '-gs', join(dir, 'settings.xml'), ...args], { cwd, env: { ...process.env, ...env }, timeout: 150_000, killSignal: 'SIGKILL', maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) =>
          done({ code: err ? 1 : 0, output: stdout + stderr }),
        ),
      );
    let r = await mvn(join(dir, 'project'), ['org.apache.maven.plugins:maven-deploy-plugin:deploy']);
    expect(r.code, r.output).toBe(0);
    rmSync(join(dir, 'm2/org/acme/snippet'), { recursive: true, force: true }); // resolve from Trove, not from the deploy's local copy
    r = await mvn(dir, ['org.apache.maven.plugins:maven-dependency-plugin:get', '-Dartifact=org.acme.snippet:mvnsnippet:1.0:pom', '-Dtransitive=false']);
    expect(r.code, r.output).toBe(0);
    expect(readFileSync(join(dir, 'm2/org/acme/snippet/mvnsnippet/1.0/mvnsnippet-1.0.pom'), 'utf8')).toContain('<artifactId>mvnsnippet</artifactId>');
  }, LONG);
});

const resolveBuild = (coords: string) => `apply plugin: 'base'
repositories {
  maven {
    url project.repoUrl
    credentials { username project.repoUser; password project.repoPassword }
  }
}
configurations { fetched }
dependencies { fetched '${coords}' }
task fetch(type: Copy) { from configurations.fetched; into "\$buildDir/fetched" }
`;

async function gradleResolve(repo: string, coords: string, user: string, password: string) {
  const dir = tempDir('trove-gradle-resolve-');
  writeFile(dir, 'settings.gradle', "rootProject.name = 'consumer'\n");
  writeFile(dir, 'build.gradle', resolveBuild(coords));
  const r = await gradle(dir, [`-PrepoUrl=${url(repo)}`, `-PrepoUser=${user}`, `-PrepoPassword=${password}`, 'fetch']);
  const fetched = join(dir, 'build/fetched');
  return { ...r, files: r.code === 0 ? readdirSync(fetched).map((f) => join(fetched, f)) : [] };
}

describe('maven format with Gradle 4.4.1', () => {
  it.concurrent('publishes with the legacy maven plugin (uploadArchives) and resolves with credentials', async () => {
    const r = await run('gradle-publish.sh', [url('private'), 'ci', 'pub-private', 'org.acme.gradle', 'legacy', '1.0'], { MODE: 'legacy' });
    expect(r.code, r.output).toBe(0);
    expect(await paths('private', 'org/acme/gradle/legacy/', 'Basic ' + Buffer.from('x:alice').toString('base64'))).toEqual(
      expect.arrayContaining(['org/acme/gradle/legacy/1.0/legacy-1.0.jar', 'org/acme/gradle/legacy/1.0/legacy-1.0.pom', 'org/acme/gradle/legacy/maven-metadata.xml']),
    );
    const got = await gradleResolve('private', 'org.acme.gradle:legacy:1.0', 'alice', 'alice');
    expect(got.code, got.output).toBe(0);
    expect(got.files.map((f) => f.slice(f.lastIndexOf('/') + 1))).toEqual(['legacy-1.0.jar']);
  }, LONG);

  it.concurrent.skipIf(!mavenPublishEnabled())('publishes a SNAPSHOT twice with maven-publish and resolves the newest build', async () => {
    // (A release through maven-publish is covered by the usage-snippet test below.)
    let r;
    for (const text of ['gradle snapshot one', 'gradle snapshot two']) {
      r = await run('gradle-publish.sh', [url('releases'), 'ci', 'pub-releases', 'org.acme.gradle', 'modern', '2.0-SNAPSHOT', jar(`modern-${text.length}-${text.slice(-3)}.jar`, text)], { MODE: 'maven-publish' });
      expect(r.code, r.output).toBe(0);
    }
    const got = await gradleResolve('releases', 'org.acme.gradle:modern:2.0-SNAPSHOT@jar', 'any', 'none');
    expect(got.code, got.output).toBe(0);
    expect(readFileSync(got.files[0]!, 'utf8')).toBe('gradle snapshot two\n');
  }, LONG);

  it.concurrent('resolves a Gradle plugin through its marker artifact with pluginManagement', async () => {
    // The plugin: a compiled class plus its descriptor, published as an ordinary jar + pom...
    const src = tempDir('trove-plugin-');
    mkdirSync(join(src, 'classes/META-INF/gradle-plugins'), { recursive: true });
    writeFile(
      src,
      'HelloPlugin.java',
      `package com.acme.hello;
import org.gradle.api.Plugin; import org.gradle.api.Project;
public class HelloPlugin implements Plugin<Project> {
  public void apply(Project p) { p.getTasks().create("hello", t -> t.doLast(x -> System.out.println("hello from a plugin served by trove"))); }
}
`,
    );
    writeFile(join(src, 'classes/META-INF/gradle-plugins'), 'com.acme.hello.properties', 'implementation-class=com.acme.hello.HelloPlugin\n');
    execFileSync('javac', ['--release', '8', '-cp', '/usr/share/gradle/lib/*:/usr/share/java/groovy-all.jar', '-d', join(src, 'classes'), join(src, 'HelloPlugin.java')], { stdio: 'pipe' });
    execFileSync('jar', ['cf', join(src, 'hello-plugin-1.0.jar'), '-C', join(src, 'classes'), '.'], { stdio: 'pipe' });
    let r = await run('maven-deploy.sh', [url('private'), 'ci', 'pub-private', 'com.acme', 'hello-plugin', '1.0', join(src, 'hello-plugin-1.0.jar')]);
    expect(r.code, r.output).toBe(0);
    // ...and the marker: <id>:<id>.gradle.plugin:<version>, a pom that depends on the implementation.
    const marker = writeFile(
      src,
      'marker.pom',
      `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>com.acme.hello</groupId><artifactId>com.acme.hello.gradle.plugin</artifactId><version>1.0</version><packaging>pom</packaging>
  <dependencies><dependency><groupId>com.acme</groupId><artifactId>hello-plugin</artifactId><version>1.0</version></dependency></dependencies>
</project>
`,
    );
    r = await run('maven-deploy.sh', [url('private'), 'ci', 'pub-private', 'com.acme.hello', 'com.acme.hello.gradle.plugin', '1.0', marker, marker]);
    expect(r.code, r.output).toBe(0);

    const consumer = tempDir('trove-plugin-consumer-');
    writeFile(
      consumer,
      'settings.gradle',
      `pluginManagement {
  repositories {
    maven {
      url '${url('private')}'
      credentials { username 'alice'; password System.getenv('TROVE_TOKEN') }
    }
  }
}
rootProject.name = 'consumer'
`,
    );
    writeFile(consumer, 'build.gradle', "plugins { id 'com.acme.hello' version '1.0' }\n");
    const g = await new Promise<{ code: number; output: string }>((done) => {
      import('node:child_process').then(({ execFile }) =>
        execFile('gradle', ['--no-daemon', '--console=plain', 'hello'], { cwd: consumer, env: { ...process.env, GRADLE_USER_HOME: join(consumer, '.gh'), TROVE_TOKEN: 'alice' }, timeout: 150_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) =>
          done({ code: err ? 1 : 0, output: stdout + stderr }),
        ),
      );
    });
    expect(g.code, g.output).toBe(0);
    expect(g.output).toContain('hello from a plugin served by trove');
  }, LONG);

  it.concurrent.skipIf(!mavenPublishEnabled())('publishes and resolves with the Groovy usage snippets as written', async () => {
    const usage = await (await fetch(`${s.url}/api/repos/private/usage`, { headers: { Authorization: 'Basic ' + Buffer.from('x:alice').toString('base64') } })).json();
    const snippet = (title: string) => usage.snippets.find((x: { title: string }) => x.title.startsWith(title)).code as string;
    const env = { TROVE_USER: 'alice', TROVE_TOKEN: 'alice', TROVE_PUBLISH_TOKEN: 'pub-private' };
    const project = (name: string, extra: string) => {
      const dir = tempDir(`trove-snippet-${name}-`);
      writeFile(dir, 'settings.gradle', `${snippet('Gradle Groovy: settings.gradle')}\nrootProject.name = '${name}'\n`);
      writeFile(dir, 'build.gradle', `${snippet('Gradle Groovy: build.gradle')}\ngroup = 'org.acme.snippet'\nversion = '1.0'\n${extra}`);
      return dir;
    };
    const lib = project('snippetlib', '');
    mkdirSync(join(lib, 'src/main/java/snippet'), { recursive: true });
    writeFile(join(lib, 'src/main/java/snippet'), 'Lib.java', 'package snippet; public class Lib {}\n');
    let r = await gradle(lib, ['publish'], undefined, env);
    expect(r.code, r.output).toBe(0);
    const consumer = project('consumer', "dependencies { implementation 'org.acme.snippet:snippetlib:1.0' }\ntask fetch(type: Copy) { from configurations.runtimeClasspath; into \"$buildDir/fetched\" }\n");
    r = await gradle(consumer, ['fetch'], undefined, env);
    expect(r.code, r.output).toBe(0);
    expect(readdirSync(join(consumer, 'build/fetched'))).toEqual(['snippetlib-1.0.jar']);
  }, LONG);
});
