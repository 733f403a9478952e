import { defineConfig } from 'drizzle-kit';

// Publishing tables (src/publish/schema.ts); migrations tracked in their own table ("publish").
// Core's tables (users) are referenced, not generated: drizzle-kit only sees this schema file.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/publish/schema.ts',
  out: './drizzle/publish',
});
