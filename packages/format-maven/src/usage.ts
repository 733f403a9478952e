import type { UsageInput, UsageSnippet } from '@trove/core';

/**
 * Client set-up for a repository. Credentials always come from the environment:
 * TROVE_USER + TROVE_TOKEN (a read token) to resolve from a private repository,
 * TROVE_PUBLISH_TOKEN (a publish session) to deploy. The user name is not checked.
 */
export function mavenUsage({ baseUrl, repo }: UsageInput): UsageSnippet[] {
  const url = `${baseUrl}/maven/${repo.name}`;
  const id = `trove-${repo.name}`;
  const needsRead = !repo.anonymousRead;
  // Once per machine: install the CLI from this server and enroll the machine's key (in CI: --oidc instead of login).
  const cliSetup = `npm install -g ${baseUrl}/downloads/trove-cli.tgz   # once
trove login ${baseUrl}                                # once per machine`;
  const readServer = needsRead
    ? `
    <server>
      <id>${id}</id>
      <username>\${env.TROVE_USER}</username>
      <password>\${env.TROVE_TOKEN}</password>
    </server>`
    : '';
  /** The read credentials block of a Gradle `maven {}` repository, at `indent` spaces. */
  const readCreds = (kotlin: boolean, indent: number) => {
    if (!needsRead) return '';
    const pad = ' '.repeat(indent);
    const q = kotlin ? '"' : "'";
    return `
${pad}credentials {
${pad}    username = System.getenv(${q}TROVE_USER${q}) ?: ${q}token${q}
${pad}    password = System.getenv(${q}TROVE_TOKEN${q})
${pad}}`;
  };
  return [
    {
      title: 'Maven: ~/.m2/settings.xml (credentials from the environment)',
      lang: 'xml',
      code: `<settings>
  <servers>${readServer}
    <server>
      <id>${id}-publish</id>
      <username>ci</username>
      <password>\${env.TROVE_PUBLISH_TOKEN}</password>
    </server>
  </servers>
  <profiles>
    <profile>
      <id>trove</id>
      <repositories>
        <repository>
          <id>${id}</id>
          <url>${url}</url>
          <releases><enabled>true</enabled></releases>
          <snapshots><enabled>true</enabled></snapshots>
        </repository>
      </repositories>
      <pluginRepositories>
        <pluginRepository>
          <id>${id}</id>
          <url>${url}</url>
        </pluginRepository>
      </pluginRepositories>
    </profile>
  </profiles>
  <activeProfiles>
    <activeProfile>trove</activeProfile>
  </activeProfiles>
</settings>`,
    },
    {
      title: 'Maven: pom.xml distributionManagement',
      lang: 'xml',
      code: `<distributionManagement>
  <repository>
    <id>${id}-publish</id>
    <url>${url}</url>
  </repository>
  <snapshotRepository>
    <id>${id}-publish</id>
    <url>${url}</url>
  </snapshotRepository>
</distributionManagement>`,
    },
    {
      title: 'Maven: deploy (the trove CLI opens a publish session and sets TROVE_PUBLISH_TOKEN)',
      lang: 'shell',
      code: `${cliSetup}
trove exec --repo ${repo.name} -- mvn deploy`,
    },
    {
      title: 'Gradle Kotlin: settings.gradle.kts (Gradle plugins from this repository)',
      lang: 'kotlin',
      code: `pluginManagement {
    repositories {
        maven {
            url = uri("${url}")${readCreds(true, 12)}
        }
        gradlePluginPortal()
    }
}`,
    },
    {
      title: 'Gradle Kotlin: build.gradle.kts',
      lang: 'kotlin',
      code: `plugins {
    \`java-library\`
    \`maven-publish\`
}

repositories {
    maven {
        url = uri("${url}")${readCreds(true, 8)}
    }
}

publishing {
    publications {
        create<MavenPublication>("maven") {
            from(components["java"])
        }
    }
    repositories {
        maven {
            name = "trove"
            url = uri("${url}")
            credentials {
                username = "ci"
                password = System.getenv("TROVE_PUBLISH_TOKEN")
            }
        }
    }
}`,
    },
    {
      title: 'Gradle Groovy: settings.gradle (Gradle plugins from this repository)',
      lang: 'groovy',
      code: `pluginManagement {
    repositories {
        maven {
            url '${url}'${readCreds(false, 12)}
        }
        gradlePluginPortal()
    }
}`,
    },
    {
      title: 'Gradle Groovy: build.gradle',
      lang: 'groovy',
      code: `plugins {
    id 'java-library'
    id 'maven-publish'
}

repositories {
    maven {
        url '${url}'${readCreds(false, 8)}
    }
}

publishing {
    publications {
        maven(MavenPublication) {
            from components.java
        }
    }
    repositories {
        maven {
            name = 'trove'
            url = '${url}'
            credentials {
                username = 'ci'
                password = System.getenv('TROVE_PUBLISH_TOKEN')
            }
        }
    }
}`,
    },
    {
      title: 'Gradle: publish (the trove CLI opens a publish session and sets TROVE_PUBLISH_TOKEN)',
      lang: 'shell',
      code: `${cliSetup}
trove exec --repo ${repo.name} -- ./gradlew publish`,
    },
  ];
}
