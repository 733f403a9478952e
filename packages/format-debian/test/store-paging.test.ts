import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '@trove/core/testing/server';
import { DebianStore } from '../src/store.js';
import { debServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const row = (pkg: string, version: string, architecture: string) => ({
  package: pkg,
  version,
  architecture,
  filename: `pool/main/${pkg[0]}/${pkg}/${pkg}_${version}_${architecture}.deb`,
  size: 1,
  md5: '0'.repeat(32),
  sha256: `${pkg}-${version}-${architecture}`.padEnd(64, '0').slice(0, 64),
  control: `Package: ${pkg}\nVersion: ${version}\nArchitecture: ${architecture}`,
});

describe('DebianStore reads a unit a page at a time', () => {
  it('gives every row of a unit larger than a page once, in key order, and ranges across pages', async () => {
    s = await debServer();
    const repoId = s.ctx.repos.byName('apt')!.id;
    const store = new DebianStore(s.ctx.db);
    const unit: string[] = [];
    // 2,600 rows in stable/main for amd64 (some "all"), beside rows that belong to other units.
    for (let i = 0; i < 2600; i++) {
      const pkg = `p${String(i).padStart(5, '0')}`;
      const arch = i % 10 === 0 ? 'all' : 'amd64';
      store.addPackage(repoId, 'stable', 'main', row(pkg, '1.0', arch));
      unit.push(`${pkg} 1.0 ${arch}`);
      if (i % 100 === 0) {
        store.addPackage(repoId, 'stable', 'main', row(pkg, '1.0', 'arm64'));
        store.addPackage(repoId, 'stable', 'contrib', row(`${pkg}-extra`, '1.0', 'amd64'));
      }
    }
    const key = (r: { package: string; version: string; architecture: string }) => `${r.package} ${r.version} ${r.architecture}`;
    expect([...store.unitPackages(repoId, 'stable', 'main', 'amd64')].map(key)).toEqual(unit);
    // A range that starts inside the first page and ends inside the third.
    const lo = ['p00500', '', ''] as const;
    const hi = ['p02300', '', ''] as const;
    expect([...store.unitRange(repoId, 'stable', 'main', 'amd64', lo, hi)].map(key)).toEqual(unit.slice(500, 2300));
    expect([...store.unitRange(repoId, 'stable', 'main', 'amd64', ['p02599', '', ''], null)].map(key)).toEqual(unit.slice(2599));
  });
});
