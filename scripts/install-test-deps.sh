#!/usr/bin/env bash
# Installs the client programs the tests drive for real (Maven, Gradle, apt tooling,
# Chromium). Does nothing when they are already present. Needs root (or sudo) on Debian.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have mvn || need+=(maven)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-deploy-plugin ] || need+=(libmaven-deploy-plugin-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-install-plugin ] || need+=(libmaven-install-plugin-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-dependency-plugin ] || need+=(libmaven-dependency-plugin-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-compiler-plugin ] || need+=(libmaven-compiler-plugin-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-jar-plugin ] || need+=(libmaven-jar-plugin-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-resources-plugin ] || need+=(libmaven-resources-plugin-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-clean-plugin ] || need+=(libmaven-clean-plugin-java)
[ -d /usr/share/maven-repo/org/apache/maven/surefire ] || need+=(libsurefire-java)
have gradle || need+=(gradle)
have chromium || need+=(chromium)
have zip || need+=(zip)
have unzip || need+=(unzip)
have dpkg-deb || need+=(dpkg)
have gpg || need+=(gpg)
have xz || need+=(xz-utils)
have zstd || need+=(zstd)

here="$(cd "$(dirname "$0")" && pwd)"
# Debian's Gradle 4.4.1 cannot upload with `maven-publish` until one jar's runtime list is patched
# (see clients/gradle-enable-maven-publish.sh); done once, reversible with --undo.
enable_maven_publish() {
  if have gradle && ! dpkg-divert --list /usr/share/java/gradle-maven-4.4.1.jar | grep -q .; then
    if [ "$(id -u)" = 0 ]; then bash "$here/clients/gradle-enable-maven-publish.sh"
    elif have sudo; then sudo bash "$here/clients/gradle-enable-maven-publish.sh"
    else echo "gradle maven-publish tests need: sudo bash $here/clients/gradle-enable-maven-publish.sh" >&2; fi
  fi
}

if [ ${#need[@]} -eq 0 ]; then
  enable_maven_publish
  exit 0
fi

echo "installing test clients: ${need[*]}" >&2
SUDO=
if [ "$(id -u)" != 0 ]; then
  if have sudo; then SUDO=sudo; else
    echo "missing: ${need[*]} (run this script as root, or install them with apt-get)" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
enable_maven_publish
