import { defineConfig } from 'drizzle-kit';

// Accounts tables (src/accounts/schema.ts): UI sessions, second factors, read tokens.
// Migrations tracked in their own table ("accounts"); core's users table is referenced, not generated.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/accounts/schema.ts',
  out: './drizzle/accounts',
});
