import { defineFormat, type Credential, type CoreContext } from '../src/index.js';
import { z } from 'zod';
import { Hono } from 'hono';
import type { TroveEnv } from '../src/http/env.js';
import { startTestServer } from '../src/testing/server.js';
import { staticResolver } from '../src/testing/resolver.js';

/** A minimal format for core's own tests: registration and config validation only. */
export const noteFormat = defineFormat({
  name: 'note',
  title: 'Notes',
  defaultConfig: { color: 'blue' },
  configSchema: z.object({ color: z.enum(['blue', 'red']) }),
  routes: () => new Hono<TroveEnv>(),
  status: () => ({ ok: true }),
  usage: ({ baseUrl, repo }) => [{ title: 'Read', lang: 'shell', code: `curl ${baseUrl}/note/${repo.name}/x` }],
});

/** `adminpw` and `alicepw` stand for full UI sessions: a Basic password alone would only read. */
export async function coreServer(env: Record<string, string> = {}) {
  let admin!: Credential;
  let alice!: Credential;
  const server = await startTestServer({
    formats: [noteFormat],
    env,
    setup: (ctx: CoreContext) => {
      admin = { type: 'user', via: 'session', user: ctx.users.create({ username: 'admin', isAdmin: true }) };
      alice = { type: 'user', via: 'session', user: ctx.users.create({ username: 'alice' }) };
      ctx.credentials.resolver = staticResolver({ adminpw: () => admin, alicepw: () => alice });
    },
  });
  return server;
}

export const auth = (password: string) => ({ Authorization: 'Basic ' + Buffer.from(`u:${password}`).toString('base64') });
export const json = (password: string) => ({ ...auth(password), 'Content-Type': 'application/json' });
