import { defineConfig } from 'drizzle-kit';

// Mirror tables (src/schema.ts); core's tables (repos) are referenced, not generated.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/schema.ts',
  out: './drizzle',
});
