/**
 * Maven's version order (org.apache.maven.artifact.versioning.ComparableVersion), needed to
 * pick `latest` and `release` when the server merges metadata. No maintained npm package
 * implements it, so this is a faithful port of the published algorithm:
 * `1.0-alpha-1 < 1.0-beta < 1.0-rc1 < 1.0-SNAPSHOT < 1.0 < 1.0-sp1 < 1.0.1 < 1.1`.
 */
type Item = { t: 'int'; v: bigint } | { t: 'str'; v: string } | { t: 'list'; v: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));

function qualifierKey(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i === -1 ? `${QUALIFIERS.length}-${q}` : String(i);
}

function strItem(value: string, followedByDigit: boolean): Item {
  if (followedByDigit && value.length === 1) value = value === 'a' ? 'alpha' : value === 'b' ? 'beta' : value === 'm' ? 'milestone' : value;
  return { t: 'str', v: ALIASES[value] ?? value };
}
const parseItem = (digit: boolean, s: string): Item => (digit ? { t: 'int', v: BigInt(s) } : strItem(s, false));

const isNull = (i: Item) => (i.t === 'int' ? i.v === 0n : i.t === 'str' ? qualifierKey(i.v) === RELEASE_INDEX : i.v.length === 0);

function normalize(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i]!;
    if (isNull(item)) list.splice(i, 1);
    else if (item.t !== 'list') break;
  }
}

export function parseVersion(version: string): Item {
  const s = version.toLowerCase();
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root];
  let digit = false;
  let start = 0;
  const push = () => {
    const sub: Item[] = [];
    list.push({ t: 'list', v: sub });
    list = sub;
    stack.push(sub);
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '.' || c === '-') {
      list.push(i === start ? { t: 'int', v: 0n } : parseItem(digit, s.slice(start, i)));
      start = i + 1;
      if (c === '-') push();
    } else if (c >= '0' && c <= '9') {
      if (!digit && i > start) {
        list.push(strItem(s.slice(start, i), true));
        start = i;
        push();
      }
      digit = true;
    } else {
      if (digit && i > start) {
        list.push(parseItem(true, s.slice(start, i)));
        start = i;
        push();
      }
      digit = false;
    }
  }
  if (s.length > start) list.push(parseItem(digit, s.slice(start)));
  while (stack.length) normalize(stack.pop()!);
  return { t: 'list', v: root };
}

function compareItems(a: Item | null, b: Item | null): number {
  if (a === null) return b === null ? 0 : -compareItems(b, null);
  if (a.t === 'int') {
    if (b === null) return a.v === 0n ? 0 : 1;
    if (b.t === 'int') return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
    return 1;
  }
  if (a.t === 'str') {
    if (b === null) return cmp(qualifierKey(a.v), RELEASE_INDEX);
    if (b.t === 'str') return cmp(qualifierKey(a.v), qualifierKey(b.v));
    return -1;
  }
  if (b === null) return a.v.length === 0 ? 0 : compareItems(a.v[0]!, null);
  if (b.t === 'int') return -1;
  if (b.t === 'str') return 1;
  for (let i = 0; i < Math.max(a.v.length, b.v.length); i++) {
    const r = compareItems(a.v[i] ?? null, b.v[i] ?? null);
    if (r !== 0) return r;
  }
  return 0;
}

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

export function compareVersions(a: string, b: string): number {
  return compareItems(parseVersion(a), parseVersion(b));
}
