import type { UserRow } from '../db/schema.js';

/** A publish session as the access rules need it (the auth package owns its storage). */
export interface PublishGrant {
  sessionId: string;
  /** The one repository the session may read and write. */
  repo: string;
  proof: 'device' | 'oidc' | 'manual';
  /** The user behind a device or manual session; null for CI sessions. */
  user: UserRow | null;
  /** Recorded as the uploader: a user name, or the CI identity (e.g. `ci:acme/widgets`). */
  actor: string;
  /** Epoch ms at which the session expires (a cached resolution never outlives it). */
  expiresAt?: number;
}

/** Who is calling, as established by the credential resolver. */
export type Credential =
  | { type: 'anonymous' }
  | {
      type: 'user';
      via: 'password' | 'read_token' | 'session';
      user: UserRow;
      /** A session that may only set up a second factor (SPEC: "Sign-in"). */
      setupOnly?: boolean;
      /** UI session id or read token id, when there is one. */
      credentialId?: string;
      /** Epoch ms at which the credential expires by itself (a read token's expiry), when it does. */
      expiresAt?: number;
    }
  | { type: 'publish'; grant: PublishGrant };

export interface CredentialRequest {
  authorization: string | undefined;
  cookie: string | undefined;
  ip: string;
  /** Cookies count only on `/api/`; format routes take Basic credentials only. */
  surface: 'api' | 'format';
}

/**
 * Turns request credentials into a Credential. The auth package implements it;
 * until then `denyAllResolver` treats everyone as anonymous, so no route is open
 * by default. Present but invalid credentials throw a 401 TroveError.
 */
export interface CredentialResolver {
  resolve(req: CredentialRequest): Promise<Credential>;
  /**
   * What `resolve` would answer for this Authorization header, without a check, when that is
   * already known and still valid (a cached resolution); undefined otherwise. Optional: the lean
   * read path (http/answer-cache.ts) uses it, and takes the full path without it. `connection`
   * (the request's socket) lets it remember the last header of a keep-alive connection.
   */
  cached?(authorization: string, connection?: object): Credential | undefined;
}

export const ANONYMOUS: Credential = { type: 'anonymous' };
