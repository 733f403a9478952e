import { isAbsolute } from 'node:path';
import { s3PrefixProblem } from '@trove/blobstore';
import { defineSettings, type SettingValue } from './types.js';

const trimSlash = (v: SettingValue) => (typeof v === 'string' ? v.replace(/\/+$/, '') : v);
const isCidr = (s: string) =>
  /^(\d{1,3}(\.\d{1,3}){3})(\/(3[0-2]|[12]?\d))?$/.test(s) || /^[0-9a-f:]+(\/(12[0-8]|1[01]\d|[1-9]?\d))?$/i.test(s);

/** The endpoint is shown (`GET /api/system`, a move's target) and logged: credentials belong in the secret keys. */
function s3Endpoint(v: SettingValue): string | undefined {
  if (v === '') return undefined;
  if (!/^https?:\/\//.test(String(v))) return 'must start with http:// or https://';
  try {
    const url = new URL(String(v));
    if (url.username || url.password) return 'must not carry credentials: set s3.access_key_id and s3.secret_access_key';
  } catch {
    return 'is not a URL';
  }
  return undefined;
}

/** Everyone sees the base URL (usage snippets, the device approval link, SSO redirects): no secrets, nothing after the path. */
function baseUrl(v: SettingValue): string | undefined {
  if (v === '') return undefined;
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(String(v))) return 'must start with http:// or https://';
  let url: URL;
  try {
    url = new URL(String(v));
  } catch {
    return 'is not a URL';
  }
  if (url.username || url.password) return 'must not carry credentials (user:password@): it is shown to every visitor';
  if (/[?#]/.test(String(v))) return 'must not carry a query or fragment: paths are appended to it';
  return undefined;
}

export const generalSettings = defineSettings({
  name: 'general',
  label: 'General',
  settings: [
    {
      key: 'base_url',
      type: 'string',
      default: '',
      devDefault: 'http://localhost:8080',
      label: 'Base URL',
      help: 'The URL clients use to reach this server. Used in snippets, the passkey relying party and the SSO redirect.',
      normalize: trimSlash,
      validate: baseUrl,
    },
    { key: 'log.level', type: 'string', default: 'info', options: ['debug', 'info', 'warn', 'error'], label: 'Log level', help: 'Least severe level written to the log.' },
    {
      key: 'trusted_proxies',
      type: 'list',
      default: [],
      label: 'Trusted proxies',
      help: 'CIDRs whose X-Forwarded-For header is trusted for the client IP (used by rate limits and the audit log).',
      validate: (v) => ((v as string[]).every(isCidr) ? undefined : 'every entry must be an IP address or CIDR'),
    },
  ],
});

export const limitSettings = defineSettings({
  name: 'limits',
  label: 'Limits',
  settings: [
    { key: 'max_upload_bytes', type: 'int', default: 2147483648, label: 'Largest upload', help: 'Largest artifact or package upload in bytes; larger uploads get 413.' },
    { key: 'max_json_bytes', type: 'int', default: 1048576, max: 64 * 1024 * 1024, label: 'Largest JSON body', help: 'Largest JSON request body in bytes.' },
  ],
});

export const storageSettings = defineSettings({
  name: 'storage',
  label: 'Storage',
  settings: [
    { key: 'storage', type: 'string', default: 'fs', options: ['fs', 's3', 'r2'], label: 'Blob store', help: 'Where file contents live: local disk (fs) or an S3-compatible store (s3; r2 is an alias).' },
    {
      key: 'fs.root',
      type: 'string',
      default: '',
      label: 'Blob directory',
      help: 'Absolute path of the directory for blobs when storage is fs; empty means blobs/ in the data directory.',
      // A relative path would depend on the directory the server happens to be started from.
      validate: (v) => (v === '' || isAbsolute(String(v)) ? undefined : 'must be an absolute path (or empty for blobs/ in the data directory)'),
    },
    { key: 's3.endpoint', type: 'string', default: '', label: 'S3 endpoint', help: 'Endpoint URL of the S3-compatible store.', validate: s3Endpoint },
    { key: 's3.region', type: 'string', default: 'auto', label: 'S3 region', help: 'Region name.' },
    { key: 's3.bucket', type: 'string', default: '', label: 'S3 bucket', help: 'Bucket name.' },
    { key: 's3.access_key_id', type: 'string', default: '', label: 'S3 access key ID', help: 'Access key ID.' },
    { key: 's3.secret_access_key', type: 'string', default: '', secret: true, label: 'S3 secret access key', help: 'Secret access key. Stored encrypted.' },
    {
      key: 's3.prefix',
      type: 'string',
      default: '',
      label: 'S3 key prefix',
      help: 'Optional prefix for every object key.',
      normalize: (v) => String(v).replace(/^\/+|\/+$/g, ''),
      // The driver's own rule: `a/./b` stored under `a/b/` but listed as `a/./b/`, a store that looked empty.
      validate: (v) => s3PrefixProblem(String(v)),
    },
    { key: 's3.path_style', type: 'bool', default: false, label: 'Path-style addressing', help: 'Use path-style URLs (needed by most self-hosted S3 servers).' },
    { key: 's3.redirect', type: 'bool', default: true, label: 'Redirect downloads', help: 'On S3, downloads answer 302 to a presigned URL; when off the server streams them.' },
    { key: 'presign_ttl', type: 'duration', default: '5m', label: 'Presigned URL lifetime', help: 'Validity of a presigned download URL.', min: 1000, max: 7 * 24 * 3_600_000 },
    { key: 'storage.gc_interval', type: 'duration', default: '6h', label: 'Blob sweep interval', help: 'How often blobs no file references any more are removed.', min: 60_000, max: 576 * 3_600_000 }, // a timer holds at most 2^31 ms
    {
      key: 'storage.gc_grace',
      type: 'duration',
      default: '1h',
      label: 'Blob sweep grace period',
      help: 'An unreferenced blob younger than this is kept, so an upload still in flight is never collected.',
      min: 1000,
    },
  ],
  validate(get) {
    const errs: Record<string, string> = {};
    if (get('storage') === 's3' || get('storage') === 'r2') {
      for (const k of ['s3.endpoint', 's3.bucket', 's3.access_key_id', 's3.secret_access_key']) {
        if (get(k) === '') errs[k] = 'required when storage is s3';
      }
    }
    return errs;
  },
});

export const coreSettingsGroups = [generalSettings, limitSettings, storageSettings];
