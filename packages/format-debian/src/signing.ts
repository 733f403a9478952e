import { readFile, access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FormatContext } from '@trove/core';
import { badRequest, TroveError } from '@trove/core';

type OpenPgp = typeof import('openpgp');
type PrivateKey = import('openpgp').PrivateKey;

/**
 * Heavy dependency, loaded on first use (a signature, a key request, a generation). Through
 * require, which resolves to openpgp's minified Node build: V8 keeps a module's source in the
 * heap, and that build's is 0.4 MB against 1.2 MB for `import` (measured: 2 MB less heap,
 * 3 MB less RSS, 30 ms less to load; the same code).
 */
let pgp: OpenPgp | undefined;
const openpgp = async (): Promise<OpenPgp> => (pgp ??= createRequire(import.meta.url)('openpgp') as OpenPgp);

export interface ActiveKey {
  key: PrivateKey;
  publicArmored: string;
  fingerprint: string;
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

/** Retry delays of a failed background generation: doubling from 1 s, at most a minute. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;

export interface SigningKeysOptions {
  /** Produces a new armored private key (tests replace it to simulate failures). */
  generate?: () => Promise<string>;
  retryFirstMs?: number;
}

const notReady = (reason: string) =>
  new TroveError(503, 'unavailable', `the Debian signing key is not available yet: ${reason}`, {}, { 'Retry-After': '5' });

/**
 * The key that signs Release files: `gpg.key_file` when set, else the stored `signing.key`.
 *
 * Lazy: openpgp and the parsed key enter memory on the first signature or key request, not at
 * start. With no key stored, `start()` generates one in the background (RSA 4096 takes seconds),
 * so the server listens at once; whatever needs the key awaits the same promise. At most one
 * generation runs at a time, its key is stored before anyone can use it, and `stop()` waits for it,
 * so a restart in the middle finds the stored key instead of generating a second one.
 */
export class SigningKeys {
  private active: ActiveKey | null = null;
  /** Bumped on every change of the key settings; the active key is current when loaded in this epoch. */
  private epoch = 0;
  private activeEpoch = -1;
  private loading: Promise<ActiveKey> | null = null;
  private generating: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;
  private readonly generateArmored: () => Promise<string>;
  private readonly retryFirstMs: number;

  constructor(
    private readonly ctx: FormatContext,
    private readonly onChange: () => void,
    opts: SigningKeysOptions = {},
  ) {
    this.generateArmored = opts.generate ?? generateArmored;
    this.retryFirstMs = opts.retryFirstMs ?? RETRY_FIRST_MS;
  }

  fromFile(): boolean {
    return this.ctx.settings.string('gpg.key_file') !== '';
  }

  /**
   * At format start. A `gpg.key_file` is read and checked now, so a missing or unusable file
   * refuses start (KeyFileError); a stored key is left for its first use; a missing one is
   * generated in the background.
   */
  async start(): Promise<void> {
    if (this.fromFile()) await this.get();
    else if (!this.ctx.settings.string('signing.key')) this.generateInBackground();
  }

  /** Waits for a generation in flight (its key gets stored) and starts no new one. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.generating?.catch(() => {});
  }

  /** The current key, loading (or awaiting the generation of) it on first use; concurrent callers share one load. */
  get(): Promise<ActiveKey> {
    if (this.active && this.activeEpoch === this.epoch) return Promise.resolve(this.active);
    return (this.loading ??= this.load().finally(() => (this.loading = null)));
  }

  /**
   * The key settings changed (a new stored key, a key file set or cleared). Every distribution is
   * signed again when the fingerprint changed; when no key was loaded in this process the old one is
   * unknown, so they are signed again anyway (signing then loads the new key).
   */
  settingsChanged(): void {
    this.epoch++;
    const before = this.active;
    if (!before) {
      this.onChange();
      return;
    }
    this.get().then(
      (key) => key.fingerprint !== before.fingerprint && this.onChange(),
      (err) => this.ctx.log.error({ reason: (err as Error).message }, 'cannot load the Debian signing key'),
    );
  }

  /** `POST /api/settings/signing-key`: a given armored key (validated) or a new one. */
  async replace(armored: string | undefined): Promise<ActiveKey> {
    if (armored) {
      let value: string;
      try {
        value = (await parsePrivateKey(armored)).armor();
      } catch (err) {
        throw badRequest((err as Error).message);
      }
      this.ctx.settings.setInternal({ 'signing.key': value });
    } else if (this.generating) {
      // The first key is being generated: it is the new key (nothing was signed with it yet).
      await this.generating;
    } else {
      await this.generate(() => true);
    }
    return this.get();
  }

  /** Whether a detached signature (a published Release.gpg) was made with the current key or one of its subkeys. */
  async signedWithCurrent(armoredSignature: string): Promise<boolean> {
    const { key } = await this.get();
    const { readSignature } = await openpgp();
    const signature = await readSignature({ armoredSignature });
    return signature.getSigningKeyIDs().some((id) => key.getKeys(id).length > 0);
  }

  /** Signs a Release file: InRelease (clearsigned) and Release.gpg (detached, armored). */
  async sign(release: string): Promise<{ inRelease: string; releaseGpg: string; fingerprint: string }> {
    const { key, fingerprint } = await this.get();
    const { sign, createCleartextMessage, createMessage } = await openpgp();
    const inRelease = await sign({ message: await createCleartextMessage({ text: release }), signingKeys: key });
    const releaseGpg = await sign({ message: await createMessage({ binary: Buffer.from(release, 'utf8') }), signingKeys: key, detached: true });
    return { inRelease: String(inRelease), releaseGpg: String(releaseGpg), fingerprint };
  }

  /** Loads until the settings stayed the same during the load; a failed reload keeps the previous key. */
  private async load(): Promise<ActiveKey> {
    for (;;) {
      const epoch = this.epoch;
      try {
        const key = await this.read();
        if (epoch !== this.epoch) continue;
        this.active = key;
        this.activeEpoch = epoch;
        return key;
      } catch (err) {
        if (epoch !== this.epoch) continue;
        if (!this.active) throw err;
        this.ctx.log.error({ reason: (err as Error).message }, 'cannot load the Debian signing key; keeping the previous one');
        this.activeEpoch = epoch;
        return this.active;
      }
    }
  }

  private async read(): Promise<ActiveKey> {
    const s = this.ctx.settings;
    const keyFile = s.string('gpg.key_file');
    if (keyFile) return activeKey(await keyFromFiles(keyFile, s.string('gpg.passphrase_file')));
    if (!s.string('signing.key')) await this.generate((stored) => stored === '');
    const armored = s.string('signing.key');
    try {
      return activeKey(await parsePrivateKey(armored));
    } catch (err) {
      // A stored key that no longer parses (e.g. a hand-edited database) is replaced, not fatal.
      this.ctx.log.error({ reason: (err as Error).message }, 'stored signing.key is unusable; generating a new one');
      await this.generate((stored) => stored === armored);
      return activeKey(await parsePrivateKey(s.string('signing.key')));
    }
  }

  /**
   * The one generation in flight (callers join it). Its key is stored when `store` accepts the
   * stored value at that moment: a key stored meanwhile by someone else (a POST) is kept.
   */
  private generate(store: (stored: string) => boolean): Promise<void> {
    if (this.generating) return this.generating;
    if (this.stopped) return Promise.reject(notReady('the server is stopping'));
    const run = async () => {
      let armored: string;
      try {
        armored = await this.generateArmored();
      } catch (err) {
        throw notReady(`generating it failed (${(err as Error).message}); retrying`);
      }
      if (!store(this.ctx.settings.string('signing.key'))) return;
      this.ctx.settings.setInternal({ 'signing.key': armored });
      this.ctx.log.info('generated the Debian repository signing key');
    };
    return (this.generating = run().finally(() => (this.generating = null)));
  }

  /** First start: generate now, off the request path; a failure is logged and retried with backoff. */
  private generateInBackground(): void {
    this.retryTimer = null;
    if (this.stopped || this.ctx.settings.string('signing.key')) return;
    this.generate((stored) => stored === '').then(
      () => (this.failures = 0),
      (err) => {
        if (this.stopped) return;
        const delay = Math.min(RETRY_MAX_MS, this.retryFirstMs * 2 ** this.failures++);
        this.ctx.log.error({ reason: (err as Error).message, retryInMs: delay }, 'cannot generate the Debian signing key');
        this.retryTimer = setTimeout(() => this.generateInBackground(), delay);
        this.retryTimer.unref?.();
      },
    );
  }
}

function activeKey(key: PrivateKey): ActiveKey {
  return { key, publicArmored: key.toPublic().armor(), fingerprint: key.getFingerprint().toUpperCase() };
}
