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
