export type SettingType = 'string' | 'bool' | 'int' | 'duration' | 'list';

/** A value as the API and the database carry it: durations stay strings (`15m`), lists are arrays. */
export type SettingValue = string | boolean | number | string[];

export interface SettingDef {
  key: string;
  type: SettingType;
  default: SettingValue;
  /** Default in dev mode (`TR_DEV=1`), when it differs. */
  devDefault?: SettingValue;
  label: string;
  help: string;
  /** Allowed values for a string setting (shown as a picker). */
  options?: string[];
  secret?: boolean;
  /**
   * For a secret sent to the place another setting names (`oidc.client_secret` goes to `oidc.issuer`'s
   * token endpoint): a PATCH that points that setting elsewhere must enter the secret again, so a
   * stored secret never follows an address it was not entered for.
   */
  sentTo?: string;
  /** Environment variable; derived from the key when absent, `null` when the setting has none (`signing.key`). */
  env?: string | null;
  /** False for keys only their owner may change (e.g. `signing.key`, set through its own route). */
  patchable?: boolean;
  /** Bounds for int (value) and duration (milliseconds); `max` defaults to `DEFAULT_MAX`. */
  min?: number;
  max?: number;
  /** Canonical form, applied before validation and storage (e.g. trailing slash removed). */
  normalize?: (v: SettingValue) => SettingValue;
  /** Extra rule; returns an error message or undefined. */
  validate?: (v: SettingValue) => string | undefined;
}

export interface SettingsGroup {
  name: string;
  label: string;
  settings: SettingDef[];
  /**
   * Rules across keys of the group, checked on the merged view of a PATCH and at start.
   * Returns a map from key to message.
   */
  validate?: (get: (key: string) => SettingValue) => Record<string, string>;
}

export type SettingSource = 'env' | 'db' | 'default';

/** One entry of `GET /api/settings`. */
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
  source: SettingSource;
  locked: boolean;
  read_only: boolean;
}

/** Lets a package register its group and validate it in one value (`defineSettings`). */
export const defineSettings = (group: SettingsGroup): SettingsGroup => group;

export const envName = (def: SettingDef): string | null =>
  def.env === undefined ? 'TR_' + def.key.toUpperCase().replace(/[.-]/g, '_') : def.env;

/**
 * Upper bound of an int or duration setting that names none: a value past it is a typo or an
 * attack (`session_ttl: 99999999999999999h` made every later sign-in a 500: no valid Date).
 * Ten years of milliseconds; a terabyte of bytes.
 */
export const DEFAULT_MAX: Record<'int' | 'duration', number> = { duration: 87_600 * 3_600_000, int: 2 ** 40 };
