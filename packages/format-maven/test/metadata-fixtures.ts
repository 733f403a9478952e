/**
 * The version-level maven-metadata.xml Maven writes when it deploys build `build` of
 * org.acme:widget:3.0-SNAPSHOT at `stamp` (yyyyMMdd.HHmmss), naming a jar and a pom of that build.
 */
export const snapshotMetadata = (stamp: string, build: number) => `<?xml version="1.0" encoding="UTF-8"?>
<metadata modelVersion="1.1.0">
  <groupId>org.acme</groupId><artifactId>widget</artifactId><version>3.0-SNAPSHOT</version>
  <versioning>
    <snapshot><timestamp>${stamp}</timestamp><buildNumber>${build}</buildNumber></snapshot>
    <lastUpdated>${stamp.replace('.', '')}</lastUpdated>
    <snapshotVersions>
      <snapshotVersion><extension>jar</extension><value>3.0-${stamp}-${build}</value><updated>${stamp.replace('.', '')}</updated></snapshotVersion>
      <snapshotVersion><extension>pom</extension><value>3.0-${stamp}-${build}</value><updated>${stamp.replace('.', '')}</updated></snapshotVersion>
    </snapshotVersions>
  </versioning>
</metadata>`;
