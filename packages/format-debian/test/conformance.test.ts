import { readFileSync } from 'node:fs';
import { describeFormatConformance } from '@trove/core/testing/format.case';
import { debianFormat, type DebianInstance } from '../src/index.js';
import { makeDeb, fixtureKeyFile } from './helpers.js';

const deb = makeDeb({ name: 'conformance', version: '1.0-1' });
// The same package, version and architecture with other bytes.
const other = makeDeb({ name: 'conformance', version: '1.0-1', payload: 'other bytes\n' });
const keyFile = await fixtureKeyFile();

describeFormatConformance({
  format: debianFormat,
  env: { TR_DEB_DEBOUNCE: '20ms', TR_GPG_KEY_FILE: keyFile },
  upload: { method: 'PUT', path: 'upload/stable/main', body: () => readFileSync(deb) },
  readBack: 'dists/stable/main/binary-amd64/Packages',
  conflict: { body: () => readFileSync(other), code: 'release_immutable' },
  settle: async (s, repo) => {
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const st = s.instance<DebianInstance>('debian').status!(s.ctx.repos.byName(repo)!) as { pending: number };
      if (st.pending === 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('indexes never settled');
  },
});
