/** Shapes of the API answers the UI reads (SPEC "Resources" and docs/decisions.md). */
export interface Page<T> {
  items: T[];
  next: string;
}

export interface Me {
  id: string;
  username: string;
  email: string;
  kind: 'local' | 'oidc';
  is_admin: boolean;
  disabled: boolean;
  second_factor_required: boolean;
  created_at: string;
}
export type User = Me;

export interface AuthConfig {
  password_login: boolean;
  oidc: boolean;
  admin_password_login: boolean;
}

/** `POST /api/auth/login`: either a pending sign-in or (no second factor yet) the user. */
export type LoginAnswer = { second_factor: true; methods: string[] } | (Me & { second_factor?: false });

export interface SecurityState {
  totp: { id: string; name: string; created_at: string }[];
  passkeys: { id: string; name: string; created_at: string; last_used_at?: string | null }[];
  recovery_codes: number;
  second_factor: boolean;
}

export interface TotpSetup {
  setup_id: string;
  secret: string;
  otpauth_url: string;
}

export interface ReadToken {
  id: string;
  name: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface Repo {
  name: string;
  format: string;
  config: Record<string, unknown>;
  anonymous_read: boolean;
  overwrite: 'allow' | 'deny';
  locked_by: string;
  created_at: string;
  updated_at: string;
}

export interface Format {
  name: string;
  title: string;
  default_config: Record<string, unknown>;
  settings_group?: string;
}

export interface Permission {
  username: string;
  level: 'read' | 'write';
}

export interface Asset {
  path: string;
  size: number;
  sha256: string;
  sha1: string | null;
  md5: string | null;
  content_type: string;
  uploader: string;
  created_at: string;
  updated_at: string;
  repo?: string;
}

export interface Usage {
  base_url: string;
  snippets: { title: string; lang: string; code: string }[];
}

export interface Device {
  id: string;
  name: string;
  kind: 'gradle' | 'maven';
  user?: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
}

export interface PendingEnrollment {
  user_code: string;
  name: string;
  kind: 'gradle' | 'maven';
  public_key: string;
  state: 'pending' | 'approved';
  expires_at: string;
}

export interface PublishSession {
  id: string;
  repo: string;
  proof: string;
  actor: string;
  state: string;
  device: { id: string | null; name: string | null } | null;
  created_at: string;
  expires_at: string;
  closed_at: string | null;
  closed_reason: string | null;
}

export interface CreatedSession {
  id: string;
  token: string;
  repo: string;
  expires_at: string;
}

/** A fresh second-factor check for approvals and manual sessions (recovery codes are refused). */
export type FreshProof = { totp_code: string } | { passkey: unknown };

/** `GET /api/settings` item (SPEC "Settings item"). A secret's value is only `{set}`. */
export type SettingType = 'string' | 'bool' | 'int' | 'duration' | 'list';
export type SettingValue = string | boolean | number | string[];
export interface SettingItem {
  key: string;
  env: string | null;
  group: string;
  label: string;
  help: string;
  type: SettingType;
  options: string[] | null;
  secret: boolean;
  value: SettingValue | { set: boolean };
  default: SettingValue | { set: boolean };
  source: 'db' | 'env' | 'default';
  locked: boolean;
  read_only: boolean;
}
export interface SettingsGroup {
  name: string;
  label: string;
  settings: SettingItem[];
}
export interface SettingsAnswer {
  groups: SettingsGroup[];
}

/** SPEC "Storage move". */
export interface StorageMove {
  id: string;
  state: 'copying' | 'done' | 'failed' | 'cancelled';
  total: number;
  copied: number;
  skipped: number;
  failed: number;
  /** Bytes copied so far. */
  bytes: number;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** Where the blobs go, without credentials: `{storage: 'fs', root}` or `{storage: 's3', endpoint, bucket, prefix}`. */
  target: Record<string, string>;
  /** Blobs removed from the old store once the move is done; null until that cleanup has finished. */
  old_removed: number | null;
  /** Why the old store's blobs were kept (it could not be told apart from the new one); else null. */
  note: string | null;
}
export interface MoveFailure {
  asset_id: string | number;
  key: string;
  reason: string;
}

export interface SigningKey {
  public_key: string;
  fingerprint: string;
}

/** SPEC "Trust policy" plus the stored record's id and times. */
export interface TrustInput {
  name: string;
  issuer: string;
  audience: string;
  claims: Record<string, string[]>;
  jwks: string;
  repos: string[];
  disabled: boolean;
}
export interface Trust extends TrustInput {
  id: string;
  created_at: string;
  updated_at: string;
}

export interface AuditEntry {
  id: number;
  at: string;
  action: string;
  actor: string;
  ip: string;
  target: string;
  detail: Record<string, unknown>;
}

export interface PublishLogEntry extends PublishSession {
  user: string | null;
  trust: { id: string | null; name: string | null } | null;
  claims: Record<string, string> | null;
}

export interface DiskSpace {
  path: string;
  free_bytes: number;
  total_bytes: number;
}
export interface SystemInfo {
  version: string;
  uptime_seconds: number;
  started_at: string;
  storage: { backend: string; location: string; driver: string };
  repositories: number;
  files: number;
  bytes: number;
  database_bytes: number | null;
  disk: { data_dir: DiskSpace | null; blob_root: DiskSpace | null };
}

/**
 * External source (mirror) shapes. The SPEC names only some fields ("not shown beyond the
 * items above"); the rest are read defensively, so a missing one shows as a dash.
 */
export interface MirrorRemoteRepo {
  name: string;
  format: string;
  type: string;
  /** apt: the distribution its target takes. */
  distribution?: string;
  /** maven2: the version policy its target takes (release, snapshot, mixed). */
  version_policy?: string;
  /** Whether the source lets a stored file be deployed again (a raw target's overwrite follows it). */
  redeploy?: boolean;
  /** The Trove repository it is mapped to; '' when unmapped. */
  target?: string | null;
  create?: boolean;
  /** False for proxies, groups and formats Trove does not mirror, with `reason` saying why. */
  mappable?: boolean;
  reason?: string;
}
export interface MirrorSource {
  id: string;
  name: string;
  base_url: string;
  username: string;
  state?: string;
  cut_over?: boolean;
  cut_over_at?: string | null;
  created_at?: string;
  repos?: MirrorRemoteRepo[];
  syncing?: boolean;
  mapping?: { source_repo: string; target: string; create?: boolean }[];
  mappings?: { source_repo: string; target: string; create?: boolean }[];
  mirror_error?: string | null;
  last_sync?: MirrorSync | null;
}
export interface MirrorSyncRepo {
  source_repo: string;
  target: string;
  total?: number;
  imported?: number;
  skipped?: number;
  failed?: number;
  state?: string;
  error?: string;
}
export interface MirrorSync {
  id: string;
  source_id?: string;
  state: string;
  /** What started it: `manual`, `schedule`, `cutover`... */
  trigger?: string;
  started_at: string;
  finished_at?: string | null;
  error?: string | null;
  repos?: MirrorSyncRepo[];
  total?: number;
  imported?: number;
  skipped?: number;
  failed?: number;
}
export interface MirrorFailure {
  source_repo?: string;
  path: string;
  reason: string;
}
