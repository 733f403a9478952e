// Where the built UI lives, so the server can embed it without knowing this package's layout.
import { fileURLToPath } from 'node:url';
export const webDistDir = fileURLToPath(new URL('./dist/', import.meta.url));
