/**
 * Control characters a terminal acts on: C0 but newline (ESC starts sequences that retitle or
 * clear the terminal, CR overwrites a line), DEL, C1 (U+009B is a one-character CSI), and the
 * bidirectional overrides that reorder what is shown. Servers supply names, messages, tokens.
 */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character shown as `\uXXXX`: visible, never acted on, and inside a
 * JSON string the same escape JSON itself uses, so printed JSON still parses to the same value.
 */
export const clean = (text: string) => text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** One line on stdout, cleaned: everything the CLI prints may carry text a server chose. */
export const say = (line: string) => void process.stdout.write(clean(line) + '\n');

/** One line on stderr, cleaned. */
export const tell = (line: string) => void process.stderr.write(clean(line) + '\n');
