import { defineConfig } from 'drizzle-kit';

// Debian tables (src/schema.ts); core's tables are referenced, not generated.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/schema.ts',
  out: './drizzle',
});
