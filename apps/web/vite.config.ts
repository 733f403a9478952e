import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Built into dist/ and embedded by the server; hashed names under assets/ are cached immutably.
// `vite dev` serves the UI with hot reload and passes API and format routes to a server on :8080
// (TROVE_URL to change it).
const target = process.env.TROVE_URL ?? 'http://localhost:8080';
const proxied = ['/api', '/raw', '/maven', '/debian', '/keys', '/healthz'];

export default defineConfig({
  base: '/',
  plugins: [react()],
  build: { outDir: 'dist', assetsDir: 'assets', emptyOutDir: true },
  server: { proxy: Object.fromEntries(proxied.map((p) => [p, { target, changeOrigin: false }])) },
});
