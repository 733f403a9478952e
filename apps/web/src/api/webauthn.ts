import { browserSupportsWebAuthn, startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import { post } from './client';

type Options = Record<string, unknown>;

/** The server wraps WebAuthn options as `{publicKey: {...}}` (like `navigator.credentials`); accept either form. */
const unwrap = (o: Options): Options => (o && typeof o.publicKey === 'object' ? (o.publicKey as Options) : o);

function explain(e: unknown): Error {
  // The relying party is base_url's host: another address (an IP, another name) cannot use passkeys.
  if (e instanceof Error && (e.name === 'SecurityError' || (e as WebAuthnError).code === 'ERROR_INVALID_DOMAIN' || (e as WebAuthnError).code === 'ERROR_INVALID_RP_ID'))
    return new Error(`Passkeys do not work at ${location.host}. Open Trove at the address its base_url names and try again.`);
  if (e instanceof WebAuthnError || (e instanceof Error && e.name === 'NotAllowedError')) {
    if ((e as Error).name === 'NotAllowedError' || (e as WebAuthnError).code === 'ERROR_CEREMONY_ABORTED')
      return new Error('The passkey check was cancelled or timed out.');
    if ((e as WebAuthnError).code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return new Error('This passkey is already registered.');
  }
  return e instanceof Error ? e : new Error(String(e));
}

export function passkeysSupported(): boolean {
  return browserSupportsWebAuthn();
}

/** Asks the server for assertion options at `path` and lets the browser answer them. */
export async function assertPasskey(path: string): Promise<unknown> {
  const options = unwrap(await post<Options>(path, {}));
  try {
    return await startAuthentication({ optionsJSON: options as never });
  } catch (e) {
    throw explain(e);
  }
}

/** Registers a new passkey: creation options, the browser ceremony, then the credential to `finish`. */
export async function registerPasskey(name: string): Promise<void> {
  const options = unwrap(await post<Options>('/api/security/passkeys/begin', { name }));
  let credential: unknown;
  try {
    credential = await startRegistration({ optionsJSON: options as never });
  } catch (e) {
    throw explain(e);
  }
  await post('/api/security/passkeys/finish', { name, credential });
}
