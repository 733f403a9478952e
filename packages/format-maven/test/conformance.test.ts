import { describeFormatConformance } from '@trove/core/testing/format.case';
import { mavenFormat } from '../src/index.js';

describeFormatConformance({
  format: mavenFormat,
  upload: { method: 'PUT', path: 'org/acme/widget/1.0/widget-1.0.jar', body: () => Buffer.from('jar bytes for conformance\n') },
  readBack: 'org/acme/widget/1.0/widget-1.0.jar',
  conflict: { body: () => Buffer.from('other jar bytes\n'), code: 'release_immutable' },
  badPaths: ['org/acme/widget/1.0/other-1.0.jar', 'widget.jar', 'org/.hidden/widget/1.0/widget-1.0.jar'],
});
