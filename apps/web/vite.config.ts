import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Built into dist/ and embedded by the server; hashed names under assets/ are cached immutably.
export default defineConfig({
  base: '/',
  plugins: [react()],
  build: { outDir: 'dist', assetsDir: 'assets', emptyOutDir: true },
});
