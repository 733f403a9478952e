import { readFile, access } from 'node:fs/promises';
import type { CoreContext } from '@trove/core';
import { badRequest } from '@trove/core';

type OpenPgp = typeof import('openpgp');
type PrivateKey = import('openpgp').PrivateKey;

/** Heavy dependency, loaded where used. */
let pgp: Promise<OpenPgp> | undefined;
const openpgp = () => (pgp ??= import('openpgp'));

export interface ActiveKey {
  key: PrivateKey;
  publicArmored: string;
  fingerprint: string;
  fromFile: boolean;
}

export class KeyFileError extends Error {}

/**
 * RSA 4096: verified by every gpgv still in use (1.4 and 2.x) and by sqv (apt >= 3.0),
 * and what Debian's own archive keys use. Ed25519 would need gpgv >= 2.1.
 */
async function generateArmored(): Promise<string> {
  const { generateKey } = await openpgp();
  const { privateKey } = await generateKey({
    type: 'rsa',
    rsaBits: 4096,
    userIDs: [{ name: 'Trove repository signing key' }],
    format: 'armored',
  });
  return privateKey;
}

/** Parses an armored private key that can sign (decrypting it when a passphrase is given). */
export async function parsePrivateKey(armored: string, passphrase?: string): Promise<PrivateKey> {
  const { readPrivateKey, decryptKey } = await openpgp();
  let key: PrivateKey;
  try {
    key = await readPrivateKey({ armoredKey: armored });
  } catch (err) {
    throw new KeyFileError(`not an armored OpenPGP private key: ${(err as Error).message}`);
  }
  if (!key.isDecrypted()) {
    if (passphrase === undefined) throw new KeyFileError('the private key is encrypted and no passphrase was given');
    try {
      key = await decryptKey({ privateKey: key, passphrase });
    } catch {
      throw new KeyFileError('the passphrase does not decrypt the private key');
    }
  }
  try {
    await key.getSigningKey();
  } catch (err) {
    throw new KeyFileError(`the key cannot sign: ${(err as Error).message}`);
  }
  return key;
}

/** Reads `gpg.key_file` (+ `gpg.passphrase_file`); a missing or unusable file is an error, never a silent fallback. */
export async function keyFromFiles(keyFile: string, passphraseFile: string): Promise<PrivateKey> {
  try {
    await access(keyFile);
  } catch {
    throw new KeyFileError(`gpg.key_file ${keyFile} does not exist or is not readable`);
  }
  const armored = await readFile(keyFile, 'utf8');
  let passphrase: string | undefined;
  if (passphraseFile) {
    try {
      passphrase = (await readFile(passphraseFile, 'utf8')).replace(/\r?\n$/, '');
    } catch {
      throw new KeyFileError(`gpg.passphrase_file ${passphraseFile} does not exist or is not readable`);
    }
  }
  return parsePrivateKey(armored, passphrase);
}

/**
 * The key that signs Release files: `gpg.key_file` when set, else the stored `signing.key`
 * (generated on first start). Reloads are serialised; `onChange` runs when the fingerprint changed.
 */
export class SigningKeys {
  private active: ActiveKey | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: CoreContext,
    private readonly onChange: () => void,
  ) {}

  get current(): ActiveKey {
    if (!this.active) throw new Error('debian signing key not loaded');
    return this.active;
  }

  loaded(): ActiveKey | null {
    return this.active;
  }

  fromFile(): boolean {
    return this.ctx.settings.string('gpg.key_file') !== '';
  }

  /** Loads (or generates) the key. Throws KeyFileError when `gpg.key_file` is set but unusable. */
  reload(): Promise<ActiveKey> {
    const run = this.chain.then(() => this.load());
    this.chain = run.catch(() => {});
    return run;
  }

  private async load(): Promise<ActiveKey> {
    const s = this.ctx.settings;
    let key: PrivateKey;
    const keyFile = s.string('gpg.key_file');
    if (keyFile) {
      key = await keyFromFiles(keyFile, s.string('gpg.passphrase_file'));
    } else {
      let armored = s.string('signing.key');
      if (!armored) {
        armored = await generateArmored();
        s.setInternal({ 'signing.key': armored });
        this.ctx.log.info('generated the Debian repository signing key');
      }
      try {
        key = await parsePrivateKey(armored);
      } catch (err) {
        // A stored key that no longer parses (e.g. a hand-edited database) is replaced, not fatal.
        this.ctx.log.error({ reason: (err as Error).message }, 'stored signing.key is unusable; generating a new one');
        armored = await generateArmored();
        s.setInternal({ 'signing.key': armored });
        key = await parsePrivateKey(armored);
      }
    }
    const fingerprint = key.getFingerprint().toUpperCase();
    const changed = this.active !== null && this.active.fingerprint !== fingerprint;
    this.active = { key, publicArmored: key.toPublic().armor(), fingerprint, fromFile: !!keyFile };
    if (changed) this.onChange();
    return this.active;
  }

  /** `POST /api/settings/signing-key`: a given armored key (validated) or a new one. */
  async replace(armored: string | undefined): Promise<ActiveKey> {
    let value: string;
    if (armored) {
      try {
        const key = await parsePrivateKey(armored);
        value = key.armor();
      } catch (err) {
        throw badRequest((err as Error).message);
      }
    } else {
      value = await generateArmored();
    }
    this.ctx.settings.setInternal({ 'signing.key': value });
    return this.reload();
  }

  /** Signs a Release file: InRelease (clearsigned) and Release.gpg (detached, armored). */
  async sign(release: string): Promise<{ inRelease: string; releaseGpg: string; fingerprint: string }> {
    const { sign, createCleartextMessage, createMessage } = await openpgp();
    const { key, fingerprint } = this.current;
    const inRelease = await sign({ message: await createCleartextMessage({ text: release }), signingKeys: key });
    const releaseGpg = await sign({ message: await createMessage({ binary: Buffer.from(release, 'utf8') }), signingKeys: key, detached: true });
    return { inRelease: String(inRelease), releaseGpg: String(releaseGpg), fingerprint };
  }
}
