/** Second-factor methods the server offers at sign-in. */
export type Method = 'totp' | 'passkey' | 'recovery';

/** The server's method names, read leniently (`recovery_code`, `webauthn`, ...). */
export function methodsOf(names: string[]): Method[] {
  const out = new Set<Method>();
  for (const n of names.map((x) => x.toLowerCase())) {
    if (n.includes('totp') || n === 'otp') out.add('totp');
    else if (n.includes('passkey') || n.includes('webauthn')) out.add('passkey');
    else if (n.includes('recovery')) out.add('recovery');
  }
  return (['passkey', 'totp', 'recovery'] as const).filter((m) => out.has(m));
}


