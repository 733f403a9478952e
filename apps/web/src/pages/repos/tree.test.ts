import { describe, expect, it } from 'vitest';
import type { Asset } from '../../api/types';
import { buildTree } from './tree';

const asset = (path: string, size: number): Asset => ({ path, size, sha256: '', sha1: null, md5: null, content_type: '', uploader: '', created_at: '', updated_at: '' });

describe('buildTree', () => {
  it('folds path-ordered files into folders with summed sizes and counts', () => {
    const root = buildTree([asset('a/b/one.jar', 10), asset('a/b/two.jar', 5), asset('a/three.pom', 1), asset('top.txt', 2)], '');
    expect(root).toMatchObject({ size: 18, count: 4 });
    expect(root.files.map((f) => f.path)).toEqual(['top.txt']);
    const a = root.folders.get('a')!;
    expect(a).toMatchObject({ path: 'a/', size: 16, count: 3 });
    expect(a.files.map((f) => f.path)).toEqual(['a/three.pom']);
    expect(a.folders.get('b')).toMatchObject({ path: 'a/b/', size: 15, count: 2 });
  });

  it('builds below a prefix with folder paths that keep the prefix', () => {
    const root = buildTree([asset('dist/app/1.0/app.tgz', 3)], 'dist/');
    expect(root.path).toBe('dist/');
    expect(root.folders.get('app')!.folders.get('1.0')!.path).toBe('dist/app/1.0/');
  });
});
