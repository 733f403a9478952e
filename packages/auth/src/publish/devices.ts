import { and, eq, isNull, lt, type SQL } from 'drizzle-orm';
import { badRequest, conflict, notFound, TroveError, type CoreContext, type UserRow } from '@trove/core';
import { Point } from '@noble/ed25519';
import { newestFirstPage, type Cursor } from '../paging.js';
import { fromBase64url, newId, newSecret, newUserCode, normalizeUserCode, sha256hex } from './crypto.js';
import { devices, enrollments, type DeviceRow, type EnrollmentRow } from './schema.js';

/** SPEC "Device enrollment code": 600 seconds, poll interval 5 seconds. */
export const ENROLL_TTL_S = 600;
export const POLL_INTERVAL_S = 5;

export interface EnrollInput {
  name: string;
  kind: 'gradle' | 'maven';
  publicKey: string;
}

/** Device poll outcomes are 400s whose `error` is the RFC 8628 code itself. */
const pollError = (code: string, description: string) => new TroveError(400, 'bad_request', code, { error_description: description });

/** Validates an enrollment body: name, kind, and a raw 32-byte Ed25519 key that decodes to a curve point. */
export function parseEnrollment(body: Record<string, unknown>): EnrollInput {
  const { name, kind, public_key } = body;
  if (typeof name !== 'string' || !name.trim() || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw badRequest('name must be 1-100 printable characters');
  }
  if (kind !== 'gradle' && kind !== 'maven') throw badRequest('kind must be "gradle" or "maven"');
  const key = typeof public_key === 'string' ? fromBase64url(public_key) : null;
  if (!key || key.length !== 32) throw badRequest('public_key must be a raw 32-byte Ed25519 public key, base64url without padding');
  try {
    Point.fromBytes(key);
  } catch {
    throw badRequest('public_key is not a valid Ed25519 public key');
  }
  return { name: name.trim(), kind, publicKey: public_key as string };
}

/**
 * What a device may learn about itself (the poll and challenge answers): its name, kind and
 * when it stops opening sessions. A device cannot read `/api/devices`, and `trove status`
 * needs these; whoever knows the random 128-bit device id learns nothing more sensitive.
 */
export function ownRecord(d: DeviceRow, store: DeviceStore) {
  return { device_id: d.id, name: d.name, kind: d.kind, expires_at: store.expiresAt(d).toISOString() };
}

/**
 * Device enrollment (RFC 8628 device authorization grant) and enrolled devices.
 * The state machine is SPEC "Device enrollment": pending -> approved -> delivered.
 */
export class DeviceStore {
  constructor(private readonly ctx: CoreContext) {}

  /** Validity of a device key: `publish.device_ttl` from approval, read live so a shorter setting applies at once. */
  expiresAt(d: DeviceRow): Date {
    return new Date(d.createdAt.getTime() + this.ctx.settings.ms('publish.device_ttl'));
  }

  enroll(input: EnrollInput): { device_code: string; user_code: string } {
    const now = Date.now();
    const deviceCode = newSecret();
    // A user-code collision with a live enrollment is astronomically rare; retry instead of leaking whose it is.
    for (let attempt = 0; ; attempt++) {
      const userCode = newUserCode();
      try {
        this.ctx.db
          .insert(enrollments)
          .values({
            id: newId(),
            deviceCodeHash: sha256hex(deviceCode),
            userCodeHash: sha256hex(userCode),
            name: input.name,
            kind: input.kind,
            publicKey: input.publicKey,
            createdAt: new Date(now),
            expiresAt: new Date(now + ENROLL_TTL_S * 1000),
          })
          .run();
        return { device_code: deviceCode, user_code: userCode };
      } catch (e) {
        if (attempt >= 3) throw e;
      }
    }
  }

  /** RFC 8628 section 3.5: approved first, then expiry, then the polling rate. */
  poll(deviceCode: string): ReturnType<typeof ownRecord> {
    const now = Date.now();
    const row = this.ctx.db.select().from(enrollments).where(eq(enrollments.deviceCodeHash, sha256hex(deviceCode))).get();
    // SPEC allows three poll outcomes: a code that cannot be exchanged (unknown, purged, used) is expired.
    if (!row) throw pollError('expired_token', 'unknown device_code; enroll again');
    if (row.state === 'delivered') throw pollError('expired_token', 'this device_code was already exchanged; enroll again');
    if (row.state === 'approved') {
      // Conditional update: two concurrent polls cannot both receive the device id.
      const res = this.ctx.db
        .update(enrollments)
        .set({ state: 'delivered', lastPollAt: new Date(now) })
        .where(and(eq(enrollments.id, row.id), eq(enrollments.state, 'approved')))
        .run();
      const device = res.changes === 1 && row.deviceId ? this.get(row.deviceId) : undefined;
      if (device) return ownRecord(device, this);
      throw pollError('expired_token', 'this device_code was already exchanged; enroll again');
    }
    if (row.expiresAt.getTime() <= now) throw pollError('expired_token', 'the enrollment expired; enroll again');
    const last = row.lastPollAt?.getTime();
    this.ctx.db.update(enrollments).set({ lastPollAt: new Date(now) }).where(eq(enrollments.id, row.id)).run();
    if (last !== undefined && now - last < POLL_INTERVAL_S * 1000) {
      throw pollError('slow_down', `poll at most every ${POLL_INTERVAL_S} seconds`);
    }
    throw pollError('authorization_pending', 'waiting for approval in the web UI');
  }

  /** A pending or used enrollment by user code; 404 for unknown and expired codes, used or not. */
  pending(userCode: string): EnrollmentRow {
    const row = this.ctx.db.select().from(enrollments).where(eq(enrollments.userCodeHash, sha256hex(normalizeUserCode(userCode)))).get();
    if (!row || row.expiresAt.getTime() <= Date.now()) throw notFound('unknown or expired code');
    return row;
  }

  /**
   * Approves a pending enrollment for `user` (the second factor was checked by the caller):
   * creates the device. One transaction with a conditional update, so a code approves once.
   */
  approve(row: EnrollmentRow, user: UserRow): DeviceRow {
    return this.ctx.db.transaction((tx) => {
      const now = new Date();
      const device: DeviceRow = {
        id: newId(),
        userId: user.id,
        name: row.name,
        kind: row.kind,
        publicKey: row.publicKey,
        createdAt: now,
        lastUsedAt: null,
        revokedAt: null,
      };
      const res = tx
        .update(enrollments)
        .set({ state: 'approved', deviceId: device.id })
        .where(and(eq(enrollments.id, row.id), eq(enrollments.state, 'pending')))
        .run();
      if (res.changes !== 1) throw conflict('this code was already used');
      tx.insert(devices).values(device).run();
      return device;
    });
  }

  get(id: string): DeviceRow | undefined {
    return this.ctx.db.select().from(devices).where(eq(devices.id, id)).get();
  }

  /** A device that may start sessions now: exists, not revoked, not past publish.device_ttl. */
  usable(id: string): DeviceRow | null {
    const d = this.get(id);
    if (!d || d.revokedAt || this.expiresAt(d).getTime() <= Date.now()) return null;
    return d;
  }

  touch(id: string): void {
    this.ctx.db.update(devices).set({ lastUsedAt: new Date() }).where(eq(devices.id, id)).run();
  }

  /** Marks the device revoked; false when it was already revoked. Sessions are closed by the caller. */
  revoke(id: string): boolean {
    const res = this.ctx.db
      .update(devices)
      .set({ revokedAt: new Date() })
      .where(and(eq(devices.id, id), isNull(devices.revokedAt)))
      .run();
    return res.changes === 1;
  }

  /** Active (not revoked) devices, newest first; all users' when `userId` is undefined. */
  page(opts: { userId?: string; after?: Cursor; limit: number }): { items: DeviceRow[]; last: Cursor | null } {
    const conds: SQL[] = [isNull(devices.revokedAt)];
    if (opts.userId !== undefined) conds.push(eq(devices.userId, opts.userId));
    return newestFirstPage(this.ctx.db, devices, conds, opts);
  }

  /** Enrollments are short-lived: drop them a day after expiry (expired_token is answered until then). */
  purge(now = Date.now()): number {
    return this.ctx.db.delete(enrollments).where(lt(enrollments.expiresAt, new Date(now - 24 * 3_600_000))).run().changes;
  }
}
