// Where the packed CLI lives, so the server can offer it without knowing this package's layout.
import { fileURLToPath } from 'node:url';
export const cliTarballPath = fileURLToPath(new URL('./dist/trove-cli.tgz', import.meta.url));
