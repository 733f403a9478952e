import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { connect } from 'node:net';
import { HTTPException } from 'hono/http-exception';
import { afterEach, describe, expect, it } from 'vitest';
import { schema, type Credential, type TroveEnv } from '../src/index.js';
import { staticResolver } from '../src/testing/resolver.js';
import { startTestServer, type TestServer } from '../src/testing/server.js';
import { json, noteFormat } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** A server with an admin and two test routes that fail the way a library or a store can. */
async function server() {
  s = await startTestServer({
    modules: [noteFormat],
    setup: (ctx) => {
      const admin: Credential = { type: 'user', via: 'session', user: ctx.users.create({ username: 'admin', isAdmin: true }) };
      const routes = new Hono<TroveEnv>();
      routes.get('/test/http-exception', () => {
        throw new HTTPException(416, { message: 'no such range' });
      });
      routes.get('/test/disk-full', () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      });
      routes.get('/test/no-file-handles', () => {
        throw Object.assign(new Error('EMFILE: too many open files, open'), { code: 'EMFILE' });
      });
      routes.get('/test/syntax-error', () => {
        JSON.parse('{not json');
        return new Response();
      });
      return { credentials: { resolver: staticResolver({ adminpw: admin }) }, apiRoutes: [routes] };
    },
  });
  return s;
}

/** Sends raw request bytes and resolves with everything the server answers before it closes. */
function rawExchange(url: string, request: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('error answers', () => {
  it('sends {error, code}: a malformed JSON body is malformed_json', async () => {
    await server();
    const r = await fetch(`${s!.url}/api/repos`, { method: 'POST', headers: json('adminpw'), body: '{"name": ' });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: 'malformed JSON body', code: 'malformed_json' });
  });

  it('maps a Hono HTTPException by its status, not to bad_request', async () => {
    await server();
    const r = await fetch(`${s!.url}/api/test/http-exception`, { headers: json('adminpw') });
    expect(r.status).toBe(416);
    expect(await r.json()).toEqual({ error: 'no such range', code: 'range_not_satisfiable' });
  });

  it('says a full disk (507) and exhausted file handles (503, Retry-After) as the server state they are', async () => {
    await server();
    const full = await fetch(`${s!.url}/api/test/disk-full`, { headers: json('adminpw') });
    expect(full.status).toBe(507);
    expect(await full.json()).toMatchObject({ code: 'insufficient_storage' });
    const handles = await fetch(`${s!.url}/api/test/no-file-handles`, { headers: json('adminpw') });
    expect(handles.status).toBe(503);
    expect(handles.headers.get('retry-after')).toBe('5');
  });

  it('answers a SyntaxError that is not a request body with a 500, not "malformed JSON body"', async () => {
    await server();
    const r = await fetch(`${s!.url}/api/test/syntax-error`, { headers: json('adminpw') });
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ error: 'internal error', code: 'internal' });
  });

  it('treats a corrupt stored repository config as an internal error', async () => {
    await server();
    const created = await fetch(`${s!.url}/api/repos`, { method: 'POST', headers: json('adminpw'), body: JSON.stringify({ name: 'notes', format: 'note' }) });
    expect(created.status).toBe(201);
    s!.ctx.db.update(schema.repos).set({ config: '{corrupt' }).where(eq(schema.repos.name, 'notes')).run();
    // RepoService caches rows; a restart-free way to drop the cache is any change through it.
    s!.ctx.repos.setLock('notes', '');
    const r = await fetch(`${s!.url}/api/repos/notes`, { headers: json('adminpw') });
    expect(r.status).toBe(500);
    expect(((await r.json()) as { error: string }).error).not.toMatch(/JSON/);
  });
  it('answers a request without Host, or with an expectation it cannot meet, with a JSON body', async () => {
    await server();
    const noHost = await rawExchange(s!.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(noHost).toMatch(/^HTTP\/1\.1 400 /);
    expect(noHost).toMatch(/\r\n\r\n\{"error":"[^"]*[Hh]ost/);
    const expect417 = await rawExchange(s!.url, 'PUT /api/repos HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    expect(expect417).toMatch(/^HTTP\/1\.1 417 /);
    expect(expect417).toMatch(/\r\n\r\n\{"error":"[^"]*Expect/);
  });
});
