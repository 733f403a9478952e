import { badRequest } from '@trove/core';

/** Real metadata nests five deep (metadata/versioning/snapshotVersions/snapshotVersion/value). */
const MAX_DEPTH = 32;
/** Element names that would become object keys reaching a prototype once parsed. */
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** Markup whose content is not tags, and the text that ends it. */
const OPAQUE: [string, string][] = [
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<?', '?>'],
  ['<!', '>'],
];

const isNameEnd = (c: string) => c === '>' || c === '/' || c === '<' || c === '!' || c === '?' || c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * Checks the element names and nesting depth before any parser sees the document: the
 * parsers recurse per level (200,000 nested tags overflow the stack) and map element names
 * onto object keys. DTDs, and so entities, are refused before this runs.
 *
 * One pass that never moves backwards, so its cost is linear in the document whatever it holds:
 * the regular expression this replaces backtracked cubically on unclosed tags (`<a<a<a...`,
 * 6 KB held the event loop for seconds). Quoted attribute values are skipped as such, so a `>`
 * or `/>` inside one cannot hide a level; what is not well-formed is left to the validator.
 */
export function refuseHostileShape(text: string): void {
  let depth = 0;
  let i = text.indexOf('<');
  while (i >= 0 && i < text.length) {
    const opaque = OPAQUE.find(([open]) => text.startsWith(open, i));
    if (opaque) {
      const end = text.indexOf(opaque[1], i + opaque[0].length);
      if (end < 0) return;
      i = text.indexOf('<', end + opaque[1].length);
      continue;
    }
    const closing = text[i + 1] === '/';
    let j = i + (closing ? 2 : 1);
    const start = j;
    while (j < text.length && !isNameEnd(text[j]!)) j++;
    const name = text.slice(start, j);
    if (FORBIDDEN_NAMES.has(name.toLowerCase())) throw badRequest(`maven-metadata.xml: element <${name}> is not allowed`);
    let quote = '';
    for (; j < text.length; j++) {
      const c = text[j]!;
      if (quote) {
        if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '>' || c === '<') break;
    }
    if (j >= text.length) return;
    if (text[j] === '>' && name) {
      if (closing) depth--;
      else if (text[j - 1] !== '/' && ++depth > MAX_DEPTH) throw badRequest(`maven-metadata.xml: elements nest deeper than ${MAX_DEPTH} levels`);
    }
    i = text[j] === '<' ? j : text.indexOf('<', j + 1);
  }
}
