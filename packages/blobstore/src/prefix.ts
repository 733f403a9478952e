/**
 * Why an S3 key prefix cannot be used, or undefined. Its segments follow the rule for keys: no
 * `..` (it would climb out), no `.` and no empty segment (`a/./b`, `a//b`): the request path is
 * normalized on the way (objects land under `a/b/`) while listings ask for the prefix as written,
 * so such a store would list as empty. Slashes at the ends are trimmed before, not refused.
 */
export function s3PrefixProblem(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  const segments = prefix.split('/');
  if (segments.includes('..')) return 'must not contain ..';
  if (segments.includes('.')) return 'must not contain . as a segment';
  if (segments.includes('')) return 'must not contain an empty segment (//)';
  return undefined;
}
