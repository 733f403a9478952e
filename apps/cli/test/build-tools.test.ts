import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, loginDevice, publisher, removeTempDirs, startServer, tempDir, trove, type Server } from './harness.js';

/**
 * `trove exec` around the real build tools: Maven and Gradle read the session token from
 * TROVE_PUBLISH_TOKEN, as the repository's usage snippets say; trove passes their exit
 * status through and closes the session afterwards.
 */
let srv: Server;
let home: string;

beforeAll(async () => {
  srv = await startServer();
  const alice = await publisher(srv.url, [{ name: 'libs', format: 'maven' }]);
  home = tempDir('trove-cli-home-');
  await loginDevice(srv.url, alice, home);
});
afterAll(async () => {
  await srv?.stop();
  removeTempDirs();
});

async function noOpenSessions() {
  const log = await api(srv.url, '/api/publish/log');
  expect(log.body.items.length).toBeGreaterThan(0);
  expect(log.body.items.map((s: { state: string; closed_reason: string }) => [s.state, s.closed_reason])).toEqual(log.body.items.map(() => ['closed', 'closed']));
}

describe('trove exec -- mvn deploy', () => {
  it('deploys with the settings.xml and distributionManagement snippets as written, then a redeploy fails and its status comes through', async () => {
    const usage = await api(srv.url, '/api/repos/libs/usage');
    const snippet = (title: string) => usage.body.snippets.find((x: { title: string }) => x.title.startsWith(title)).code as string;
    expect(snippet('Maven: deploy')).toContain('trove exec --repo libs -- mvn deploy');
    const dir = tempDir('trove-cli-mvn-');
    // Additions for this offline machine only: a throwaway local repository, and Maven's own
    // plugins from Debian's packages (every repository but the snippet's own).
    writeFileSync(
      join(dir, 'settings.xml'),
      snippet('Maven: ~/.m2/settings.xml').replace(
        '<settings>',
        `<settings>\n  <localRepository>${dir}/m2</localRepository>\n  <mirrors><mirror><id>debian</id><mirrorOf>*,!trove-libs,!trove-libs-publish</mirrorOf><url>file:///usr/share/maven-repo</url></mirror></mirrors>`,
      ),
    );
    mkdirSync(join(dir, 'project'));
    writeFileSync(
      join(dir, 'project', 'pom.xml'),
      `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>org.acme.cli</groupId><artifactId>clidemo</artifactId><version>1.0</version><packaging>pom</packaging>
${snippet('Maven: pom.xml distributionManagement')}
</project>
`,
    );
    const mvn = () =>
      trove(['exec', '--repo', 'libs', '--', 'mvn', '-B', '-Dstyle.color=never', '-s', join(dir, 'settings.xml'), '-gs', join(dir, 'settings.xml'), 'deploy'], {
        configDir: home,
        cwd: join(dir, 'project'),
      }).done;
    let r = await mvn();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const pom = await fetch(`${srv.url}/maven/libs/org/acme/cli/clidemo/1.0/clidemo-1.0.pom`);
    expect(await pom.text()).toBe(readFileSync(join(dir, 'project', 'pom.xml'), 'utf8'));
    // The same release again with different bytes: the server refuses (409), Maven fails, trove exits with Maven's status.
    writeFileSync(join(dir, 'project', 'pom.xml'), readFileSync(join(dir, 'project', 'pom.xml'), 'utf8').replace('</project>', '<!-- changed --></project>'));
    r = await mvn();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/409/);
    await noOpenSessions();
  });
});

describe('trove exec -- gradle', () => {
  it('publishes with a Gradle build that reads TROVE_PUBLISH_TOKEN from the environment', async () => {
    const dir = tempDir('trove-cli-gradle-');
    writeFileSync(join(dir, 'lib.jar'), 'not really a jar, but bytes to publish');
    writeFileSync(join(dir, 'settings.gradle'), "rootProject.name = 'gradledemo'\n");
    // Debian's Gradle 4.4 publishes offline with the legacy `maven` plugin (scripts/clients/gradle-publish.sh).
    writeFileSync(
      join(dir, 'build.gradle'),
      `apply plugin: 'base'
apply plugin: 'maven'
group = 'org.acme.cli'
version = '2.0'
configurations { deployerJars }
dependencies { deployerJars files('/usr/share/java/maven-resolver-transport-wagon.jar') }
artifacts { archives(file('lib.jar')) { name = 'gradledemo'; type = 'jar'; extension = 'jar' } }
uploadArchives {
  repositories.mavenDeployer {
    configuration = configurations.deployerJars
    repository(url: System.getenv('TROVE_URL') + '/maven/' + System.getenv('TROVE_REPO')) {
      authentication(userName: 'ci', password: System.getenv('TROVE_PUBLISH_TOKEN'))
    }
  }
}
`,
    );
    const gradle = (task: string) =>
      trove(['exec', '--repo', 'libs', '--', 'gradle', '--no-daemon', '--console=plain', '-q', '--offline', task], {
        configDir: home,
        cwd: dir,
        env: { GRADLE_USER_HOME: join(dir, '.gradle-home') },
      }).done;
    let r = await gradle('uploadArchives');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const jar = await fetch(`${srv.url}/maven/libs/org/acme/cli/gradledemo/2.0/gradledemo-2.0.jar`);
    expect(await jar.text()).toBe('not really a jar, but bytes to publish');
    r = await gradle('noSuchTask');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Task 'noSuchTask' not found/);
    await noOpenSessions();
  });
});
