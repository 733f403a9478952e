import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { debServer } from './helpers.js';

let s: TestServer;
afterEach(() => s?.close());

const snippets = async (repo: string): Promise<string> => {
  const res = await fetch(`${s.url}/api/repos/${repo}/usage`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { snippets: { code: string }[] }).snippets.map((x) => x.code).join('\n');
};

describe('usage snippets', () => {
  it("name the repository's configured distribution (a mirrored apt repository's), else stable", async () => {
    s = await debServer();
    expect(await snippets('apt')).toMatch(/Suites: stable\n/);
    await s.ctx.repos.update('apt', { config: { architectures: ['amd64'], distribution: 'bookworm' } });
    const code = await snippets('apt');
    expect(code).toMatch(/Suites: bookworm\n/);
    expect(code).toMatch(/--dist bookworm /);
    expect(code).toMatch(/\/upload\/bookworm\/main/);
    expect(code).not.toMatch(/stable/);
  });
});
