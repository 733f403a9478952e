import { and, eq } from 'drizzle-orm';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { badRequest, conflict, type CoreContext, type UserRow } from '@trove/core';
import { newId } from '../publish/crypto.js';
import { passkeys, type PasskeyRow } from '../accounts/schema.js';
import { ChallengeStore } from './challenges.js';

const RP_NAME = 'Trove';

/** Heavy dependency (about 9 MB resident with its x509/ASN.1 stack): loaded on the first passkey operation. */
let webauthnModule: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (webauthnModule ??= import('@simplewebauthn/server'));

export const passkeyJson = (p: PasskeyRow) => ({
  id: p.id,
  name: p.name,
  created_at: p.createdAt.toISOString(),
  last_used_at: p.lastUsedAt?.toISOString() ?? null,
});

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Passkeys (WebAuthn) with @simplewebauthn/server. The relying party is `base_url`: its
 * host is the RP ID and its origin the only accepted origin, so without `base_url` the
 * routes answer 409. Attestation is not requested ('none'): Trove trusts the key, not
 * the authenticator's make. User verification is preferred, not required.
 */
export class Passkeys {
  /** Registration challenges by user id; fresh-check ("assert") challenges by user id. */
  private readonly registrations = new ChallengeStore();
  private readonly asserts = new ChallengeStore();
  constructor(private readonly ctx: CoreContext) {}

  /** 409 when `base_url` is empty (SPEC: passkey routes). */
  rp(): { rpID: string; origin: string } {
    const base = this.ctx.baseUrl();
    if (!base) throw conflict('passkeys need base_url to be set (the relying party is its host)');
    const u = new URL(base);
    return { rpID: u.hostname, origin: u.origin };
  }

  list(userId: string): PasskeyRow[] {
    return this.ctx.db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(passkeys.createdAt).all();
  }

  remove(userId: string, id: string): boolean {
    return this.ctx.db.delete(passkeys).where(and(eq(passkeys.id, id), eq(passkeys.userId, userId))).run().changes > 0;
  }

  /** Removes all of the user's (an admin's reset); how many there were. */
  removeAll(userId: string): number {
    return this.ctx.db.delete(passkeys).where(eq(passkeys.userId, userId)).run().changes;
  }

  async registrationOptions(user: UserRow): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { rpID } = this.rp();
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID,
      userName: user.username,
      userID: new TextEncoder().encode(user.id),
      attestationType: 'none',
      excludeCredentials: this.list(user.id).map((p) => ({ id: p.credentialId, transports: transportsOf(p) })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    this.registrations.put(user.id, options.challenge);
    return options;
  }

  async register(user: UserRow, name: string, credential: unknown): Promise<PasskeyRow> {
    const { rpID, origin } = this.rp();
    if (!isObject(credential)) throw badRequest('credential is required');
    const challenge = this.registrations.take(user.id);
    if (!challenge) throw badRequest('no passkey registration in progress; begin again');
    const { verifyRegistrationResponse } = await webauthn();
    let info;
    try {
      const r = await verifyRegistrationResponse({
        response: credential as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: false,
      });
      if (!r.verified || !r.registrationInfo) throw new Error('not verified');
      info = r.registrationInfo;
    } catch (e) {
      throw badRequest(`the passkey could not be verified: ${(e as Error).message}`);
    }
    const cred = info.credential;
    if (this.ctx.db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.credentialId, cred.id)).get()) {
      throw conflict('this passkey is already registered');
    }
    return this.ctx.db
      .insert(passkeys)
      .values({
        id: newId(),
        userId: user.id,
        name,
        credentialId: cred.id,
        publicKey: Buffer.from(cred.publicKey).toString('base64url'),
        counter: cred.counter,
        transports: JSON.stringify(cred.transports ?? []),
        createdAt: new Date(),
      })
      .returning()
      .get();
  }

  /** Options for an assertion by one of the user's passkeys (sign-in or fresh check). */
  async assertionOptions(user: UserRow): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { rpID } = this.rp();
    const { generateAuthenticationOptions } = await webauthn();
    return generateAuthenticationOptions({
      rpID,
      userVerification: 'preferred',
      allowCredentials: this.list(user.id).map((p) => ({ id: p.credentialId, transports: transportsOf(p) })),
    });
  }

  /** Options for `POST /api/security/passkeys/assert`; the challenge waits for the approval or manual session. */
  async freshCheckOptions(user: UserRow): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await this.assertionOptions(user);
    this.asserts.put(user.id, options.challenge);
    return options;
  }

  /** Verifies a fresh-check assertion against the challenge last issued to this user (single use). */
  verifyFresh(user: UserRow, response: unknown): Promise<boolean> {
    const challenge = this.asserts.take(user.id);
    return challenge ? this.verify(user, response, challenge) : Promise.resolve(false);
  }

  /** True when `response` is a valid assertion of one of the user's passkeys for `challenge`; bumps the counter. */
  async verify(user: UserRow, response: unknown, challenge: string): Promise<boolean> {
    if (!isObject(response) || typeof response.id !== 'string') return false;
    const { rpID, origin } = this.rp();
    const row = this.list(user.id).find((p) => p.credentialId === response.id);
    if (!row) return false;
    const { verifyAuthenticationResponse } = await webauthn();
    try {
      const r = await verifyAuthenticationResponse({
        response: response as unknown as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: false,
        credential: { id: row.credentialId, publicKey: new Uint8Array(Buffer.from(row.publicKey, 'base64url')), counter: row.counter, transports: transportsOf(row) },
      });
      if (!r.verified) return false;
      this.ctx.db.update(passkeys).set({ counter: r.authenticationInfo.newCounter, lastUsedAt: new Date() }).where(eq(passkeys.id, row.id)).run();
      return true;
    } catch {
      return false;
    }
  }
}

const transportsOf = (p: PasskeyRow) => JSON.parse(p.transports) as AuthenticatorTransportFuture[];
