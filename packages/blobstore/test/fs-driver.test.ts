import { mkdtempSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fsDriver } from '../src/index.js';
import { runDriverSuite } from './driver.case.js';

runDriverSuite('fs', async () => fsDriver({ root: mkdtempSync(join(tmpdir(), 'trove-fs-')) }));

describe('fs driver', () => {
  it('refuses keys that would escape the root', async () => {
    const d = fsDriver({ root: mkdtempSync(join(tmpdir(), 'trove-fs-')) });
    await expect(d.head('../etc/passwd')).rejects.toThrow(/invalid blob key/);
    await expect(d.put('a/../../x', { stream: Readable.from(['x']) })).rejects.toThrow(/invalid blob key/);
  });

  it('leaves no temporary file behind when a stream fails mid-put', async () => {
    const root = mkdtempSync(join(tmpdir(), 'trove-fs-'));
    const d = fsDriver({ root });
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1000));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(d.put('k/one', { stream: failing })).rejects.toThrow('client went away');
    expect(existsSync(join(root, 'k', 'one'))).toBe(false);
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });
});
