/**
 * Debian control paragraphs (deb822, Debian policy 5.1): `Field: value` lines, continuation
 * lines starting with a space or tab. Only what the format needs: one paragraph in, fields
 * in their original order out. No maintained npm parser exists; the grammar is this small.
 */
export interface Field {
  name: string;
  /** The value exactly as written, continuation lines included (joined by `\n`). */
  value: string;
}

export class ControlSyntaxError extends Error {}

const FIELD_NAME = /^[!-9;-~][!-9;-~]*$/; // printable ASCII except ':' and space, not starting with '#' or '-'

export function parseParagraph(text: string): Field[] {
  const fields: Field[] = [];
  const seen = new Set<string>();
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  // A control file is one paragraph; blank lines at its end are allowed.
  while (lines.length && lines[lines.length - 1]!.trim() === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('#')) continue;
    if (line.trim() === '') throw new ControlSyntaxError('control file holds more than one paragraph');
    if (line.startsWith(' ') || line.startsWith('\t')) {
      const last = fields[fields.length - 1];
      if (!last) throw new ControlSyntaxError('continuation line before the first field');
      last.value += '\n' + line;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) throw new ControlSyntaxError(`malformed control line: ${line.slice(0, 60)}`);
    const name = line.slice(0, colon);
    if (!FIELD_NAME.test(name) || name.startsWith('-')) throw new ControlSyntaxError(`invalid field name: ${name.slice(0, 60)}`);
    const key = name.toLowerCase();
    if (seen.has(key)) throw new ControlSyntaxError(`duplicate field ${name}`);
    seen.add(key);
    fields.push({ name, value: line.slice(colon + 1).trim() });
  }
  if (!fields.length) throw new ControlSyntaxError('control file is empty');
  return fields;
}

export function fieldValue(fields: Field[], name: string): string | undefined {
  const key = name.toLowerCase();
  return fields.find((f) => f.name.toLowerCase() === key)?.value;
}

export function formatParagraph(fields: Field[]): string {
  return fields.map((f) => (f.value.startsWith('\n') ? `${f.name}:${f.value}` : `${f.name}: ${f.value}`)).join('\n') + '\n';
}
