import { describeFormatConformance } from '@trove/core/testing/format.case';
import { rawFormat } from '../src/index.js';

describeFormatConformance({
  format: rawFormat,
  upload: { method: 'PUT', path: 'dir/hello.txt', body: () => Buffer.from('hello, conformance\n') },
  readBack: 'dir/hello.txt',
  // Repositories refuse overwrites unless their `overwrite` is `allow`.
  conflict: { body: () => Buffer.from('other bytes\n'), code: 'asset_exists' },
});
