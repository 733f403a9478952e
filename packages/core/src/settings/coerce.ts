import { parseDuration } from './duration.js';
import { DEFAULT_MAX, type SettingDef, type SettingValue } from './types.js';

type Result = { ok: true; value: SettingValue } | { ok: false; error: string };

const fail = (error: string): Result => ({ ok: false, error });

/** Checks an API (JSON) value against its definition and returns the canonical value. */
export function coerceJson(def: SettingDef, input: unknown): Result {
  let v: SettingValue;
  switch (def.type) {
    case 'string':
      if (typeof input !== 'string') return fail('must be a string');
      v = input.trim();
      break;
    case 'bool':
      if (typeof input !== 'boolean') return fail('must be true or false');
      v = input;
      break;
    case 'int':
      if (typeof input !== 'number' || !Number.isSafeInteger(input) || input <= 0) return fail('must be a positive integer');
      v = input;
      break;
    case 'duration':
      if (typeof input !== 'string' || parseDuration(input) === null) return fail('must be a duration such as 30s, 15m or 2160h (no day unit)');
      v = input.trim();
      break;
    case 'list':
      if (!Array.isArray(input) || !input.every((x) => typeof x === 'string')) return fail('must be an array of strings');
      v = input.map((x: string) => x.trim()).filter(Boolean);
      break;
  }
  return finish(def, v);
}

/** Parses an environment string (`list` is comma-separated there). */
export function coerceEnv(def: SettingDef, raw: string): Result {
  switch (def.type) {
    case 'string':
    case 'duration':
      return coerceJson(def, raw);
    case 'bool':
      if (raw !== 'true' && raw !== 'false') return fail('must be true or false');
      return coerceJson(def, raw === 'true');
    case 'int':
      if (!/^\d+$/.test(raw.trim())) return fail('must be a positive integer');
      return coerceJson(def, Number(raw.trim()));
    case 'list':
      return coerceJson(def, raw.split(','));
  }
}

function finish(def: SettingDef, value: SettingValue): Result {
  let v = def.normalize ? def.normalize(value) : value;
  if (def.options && typeof v === 'string' && !def.options.includes(v)) return fail(`must be one of ${def.options.join(', ')}`);
  const n = def.type === 'int' ? (v as number) : def.type === 'duration' ? parseDuration(v as string)! : undefined;
  if (n !== undefined && def.min !== undefined && n < def.min) return fail(`must be at least ${describe(def, def.min)}`);
  const max = def.max ?? (def.type === 'int' || def.type === 'duration' ? DEFAULT_MAX[def.type] : undefined);
  if (n !== undefined && max !== undefined && n > max) return fail(`must be at most ${describe(def, max)}`);
  const err = def.validate?.(v);
  return err ? fail(err) : { ok: true, value: v };
}

function describe(def: SettingDef, n: number): string {
  if (def.type !== 'duration') return String(n);
  if (n % 3_600_000 === 0) return `${n / 3_600_000}h`;
  if (n % 60_000 === 0) return `${n / 60_000}m`;
  if (n % 1000 === 0) return `${n / 1000}s`;
  return `${n}ms`;
}

export const sameValue = (a: SettingValue | undefined, b: SettingValue | undefined): boolean =>
  JSON.stringify(a) === JSON.stringify(b);
