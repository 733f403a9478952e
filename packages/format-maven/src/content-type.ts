import { inertContentType } from '@trove/core';

/**
 * Content types Maven Central answers with; anything else is octet-stream. POMs and XML go out
 * as `text/plain` rather than `text/xml` (docs/decisions.md): Maven and Gradle ignore the type,
 * a browser shows the text, and an XHTML `<script>` in a POM can never run on Trove's origin.
 */
const TYPES: Record<string, string> = {
  jar: 'application/java-archive',
  war: 'application/java-archive',
  ear: 'application/java-archive',
  aar: 'application/java-archive',
  pom: 'text/xml',
  xml: 'text/xml',
  module: 'application/json',
  json: 'application/json',
  asc: 'text/plain',
  md5: 'text/plain',
  sha1: 'text/plain',
  sha256: 'text/plain',
  sha512: 'text/plain',
  txt: 'text/plain',
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
};

export function contentTypeOf(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return inertContentType(TYPES[ext] ?? 'application/octet-stream');
}
