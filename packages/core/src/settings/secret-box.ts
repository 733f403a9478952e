import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

/**
 * AES-256-GCM for secret settings. The key is derived from the master key with HKDF
 * (so the master key itself never encrypts data directly and other uses can derive
 * their own keys), and the setting's name is bound as associated data so a
 * ciphertext copied onto another key fails to decrypt.
 */
export class SecretBox {
  private readonly key: Buffer;
  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
    this.key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.from('trove'), Buffer.from('settings v1'), 32));
  }

  seal(name: string, plaintext: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(name));
    const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
    return PREFIX + Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64');
  }

  /** Throws when the value was not sealed by this master key for this name. */
  open(name: string, sealed: string): string {
    if (!sealed.startsWith(PREFIX)) throw new Error('not an encrypted value');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    if (raw.length < 28) throw new Error('truncated ciphertext');
    const d = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    d.setAAD(Buffer.from(name));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
  }
}
