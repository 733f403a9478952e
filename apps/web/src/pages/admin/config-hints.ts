/**
 * What `/api/formats` cannot say: allowed values and optional keys of the built-in formats'
 * configs (their zod schemas live on the server). Unknown formats get a form from their
 * default config alone.
 */
export interface FieldHint {
  choices?: { value: string; label: string }[];
  optional?: boolean;
  help?: string;
}

export const CONFIG_HINTS: Record<string, Record<string, FieldHint>> = {
  maven: {
    version_policy: {
      choices: [
        { value: 'mixed', label: 'Releases and snapshots' },
        { value: 'release', label: 'Releases only' },
        { value: 'snapshot', label: 'Snapshots only' },
      ],
      help: 'Which versions uploads may have. Metadata files are always accepted.',
    },
  },
  debian: {
    architectures: { help: 'Published in every distribution even before a package of that architecture exists, e.g. amd64, arm64.' },
    origin: { optional: true, help: 'The Origin field of Release files (optional).' },
    label: { optional: true, help: 'The Label field of Release files (optional).' },
  },
};
