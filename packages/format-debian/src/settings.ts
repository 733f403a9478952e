import { defineSettings } from '@trove/core';

export const debianSettings = defineSettings({
  name: 'debian',
  label: 'Debian repositories',
  settings: [
    {
      key: 'signing.key',
      type: 'string',
      default: '',
      secret: true,
      env: null,
      patchable: false,
      label: 'Signing key',
      help: 'Armored OpenPGP private key that signs Release files; generated in the background on first start. Change it with POST /api/settings/signing-key.',
    },
    {
      key: 'gpg.key_file',
      type: 'string',
      default: '',
      label: 'Signing key file',
      help: 'Path of a mounted armored private key; when set it replaces the stored key and must exist.',
    },
    {
      key: 'gpg.passphrase_file',
      type: 'string',
      default: '',
      label: 'Signing key passphrase file',
      help: 'Path of a file holding the passphrase of an encrypted key file.',
    },
    {
      key: 'deb.debounce',
      type: 'duration',
      default: '2s',
      devDefault: '300ms',
      min: 1,
      max: 10 * 60_000,
      label: 'Index rebuild delay',
      help: 'Quiet period after an upload before indexes are rebuilt.',
    },
    {
      key: 'deb.max_delay',
      type: 'duration',
      default: '30s',
      min: 1,
      max: 60 * 60_000,
      label: 'Longest index rebuild delay',
      help: 'Longest a rebuild waits under continuous uploads.',
    },
  ],
  validate(get) {
    const errs: Record<string, string> = {};
    if (get('gpg.passphrase_file') !== '' && get('gpg.key_file') === '') errs['gpg.passphrase_file'] = 'needs gpg.key_file';
    return errs;
  },
});
