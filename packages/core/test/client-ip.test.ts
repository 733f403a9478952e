import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { clientIp, proxyMatcher } from '../src/index.js';
import type { TroveEnv } from '../src/http/env.js';
import { listen } from '../src/http/listen.js';

async function echoIp(trusted: string[]) {
  const app = new Hono<TroveEnv>();
  app.use('*', clientIp({ trusted: () => proxyMatcher(trusted) }));
  app.get('/ip', (c) => c.text(c.get('clientIp')));
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  const port = (server.address() as { port: number }).port;
  return {
    get: (xff?: string) => fetch(`http://127.0.0.1:${port}/ip`, { headers: xff ? { 'X-Forwarded-For': xff } : {} }).then((r) => r.text()),
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('client IP', () => {
  it('ignores X-Forwarded-For from an untrusted peer', async () => {
    const s = await echoIp([]);
    expect(await s.get('9.9.9.9')).toBe('127.0.0.1');
    await s.close();
  });

  it('takes the first untrusted hop from the right when the peer is a trusted proxy', async () => {
    const s = await echoIp(['127.0.0.0/8', '10.0.0.0/8']);
    expect(await s.get('1.2.3.4, 10.1.1.1')).toBe('1.2.3.4');
    expect(await s.get('6.6.6.6, 1.2.3.4')).toBe('1.2.3.4'); // a client cannot spoof past the first untrusted hop
    expect(await s.get()).toBe('127.0.0.1');
    await s.close();
  });

  it('matches IPv4, IPv6 and IPv4-mapped addresses', () => {
    const m = proxyMatcher(['192.168.0.0/16', '::1', '2001:db8::/32']);
    expect(m('192.168.4.5')).toBe(true);
    expect(m('::ffff:192.168.4.5')).toBe(true);
    expect(m('::1')).toBe(true);
    expect(m('2001:db8::7')).toBe(true);
    expect(m('8.8.8.8')).toBe(false);
    expect(m('not an ip')).toBe(false);
  });
});
