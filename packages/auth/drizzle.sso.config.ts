import { defineConfig } from 'drizzle-kit';

// SSO tables (src/sso/schema.ts): the provider identity behind each SSO user.
// Migrations tracked in their own table ("sso"); core's users table is referenced, not generated.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/sso/schema.ts',
  out: './drizzle/sso',
});
