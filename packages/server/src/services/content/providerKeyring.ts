import { randomBytes, type KeyObject } from 'node:crypto';
import {
  CTR_IV_BYTES,
  CTR_KEY_BYTES,
  ctrKeystreamPrefix,
  ctrTransform,
  ctrWithKeystream,
  GCM_KEY_BYTES,
  gcmAad,
  gcmOpen,
  hexToBytes,
  parseGcmMessage,
  secretKeyFrom,
} from '../../crypto/payloadCipher.js';
import type { SecretBox } from '../../crypto/secretBox.js';
import { AppError } from '../../errors.js';
import type {
  ConsumeAuth,
  ContentProviderStore,
  PayloadMode,
  SealedClientKeys,
} from '../../stores/contentProviderStore.js';

/** How a client's consumption calls are authenticated (decisions §7). */
export interface ConsumptionSettings {
  mode: PayloadMode;
  consumeAuth: ConsumeAuth;
}

/** The spec's behaviour: the CTR form, anonymous. */
export const SPEC_CONSUMPTION: ConsumptionSettings = { mode: 'ctr', consumeAuth: 'none' };

/** A client's payload secrets, unsealed into `KeyObject`s. */
interface ClientKeys {
  clientId: string;
  ctrKey: KeyObject;
  ctrIv: Buffer;
  /**
   * The first `CTR_KEYSTREAM_HELD` bytes of the legacy form's key stream (fixed: one key, one IV), so a
   * payload that fits is opened by a XOR. As secret as the key it came from, and kept no longer.
   */
  ctrKeystream: Buffer;
  gcmKey: KeyObject | undefined;
  mode: PayloadMode;
  consumeAuth: ConsumeAuth;
  updatedAt: number;
  /** First two ciphertext bytes of any payload whose plaintext starts with `{"`. */
  prefix2: number;
}

/** A payload that decrypted under a provider's key. */
export interface OpenedPayload {
  clientId: string;
  form: 'ctr' | 'gcm';
  /** Whether the provider requires its app's credentials on consumption calls. */
  consumeAuth: ConsumeAuth;
  plaintext: Buffer;
  /** The authenticated form's IV (its per-message nonce). */
  nonce: Buffer | undefined;
}

const OPEN_BRACE = 0x7b;
const QUOTE = 0x22;
const RELOAD_MIN_INTERVAL_MS = 1_000;
/** Key stream held per provider: a consumption payload is about 150 bytes; a longer one takes the cipher. */
const CTR_KEYSTREAM_HELD = 512;

const sealAad = {
  ctr: (clientId: string) => `content_ctr:${clientId}`,
  gcm: (clientId: string) => `content_gcm:${clientId}`,
};

export const invalidPayload = () =>
  new AppError(
    401,
    'invalid_payload',
    'encrypted_message does not decrypt to a valid payload of a registered provider',
  );

/**
 * Every provider's payload keys in memory, with an index that finds the key of a legacy (CTR) payload sent
 * without `client_id` in O(1): with a fixed key and IV, a payload whose JSON text starts with `{"` (what
 * every JSON encoder writes) always starts with the same two ciphertext bytes, so providers are bucketed
 * by those two bytes and only the providers in the bucket (P / 65,536 on average) are tried. A payload
 * that starts otherwise (leading whitespace) is found only with `client_id`.
 *
 * Keys are loaded at start and then incrementally (changed rows since the last load): on a miss (at most
 * one load a second, which the miss waits for), and every few seconds in the background so a mode change on another replica applies here.
 */
export class ProviderKeyring {
  readonly #byClient = new Map<string, ClientKeys>();
  readonly #byPrefix2 = new Map<number, Set<string>>();
  #loadedUntil = 0;
  /** When the latest load started (ms), for the one-load-a-second throttle. */
  #lastLoad = 0;
  /** Loads are numbered as they start; a miss waits for one numbered after what had started when it arrived. */
  #loadsStarted = 0;
  #loadsFinished = 0;
  #loading: Promise<void> | undefined;

  constructor(
    private readonly store: ContentProviderStore,
    private readonly secretBox: SecretBox,
  ) {}

  get size(): number {
    return this.#byClient.size;
  }

  /** Loads every change since the last load (all keys the first time). */
  async reload(): Promise<void> {
    this.#loading ??= (async () => {
      try {
        const started = Date.now();
        const number = ++this.#loadsStarted;
        // Rows updated in the same millisecond as the previous load's newest are read again (idempotent).
        const rows = await this.store.listClientKeys(this.#loadedUntil);
        for (const row of rows) this.#install(row);
        this.#loadedUntil = rows.length > 0 ? rows[rows.length - 1]!.updatedAt : this.#loadedUntil;
        this.#lastLoad = started;
        this.#loadsFinished = number;
      } finally {
        this.#loading = undefined;
      }
    })();
    return this.#loading;
  }

  /**
   * Returns once load number `needed` (one that started after the request arrived) has finished, starting at
   * most one load a second (bounds the cost of a flood of unknown payloads; concurrent callers share the
   * load). A provider written by another replica before the request arrived is then known here: waiting up
   * to a second for the next load slot is what an unknown payload costs, never a wrong 401. Loads are
   * counted rather than timed: a request arriving in the millisecond a load started must still wait for the
   * next one (CI caught the timestamp version answering 401 so).
   */
  async #catchUp(needed: number): Promise<void> {
    while (this.#loadsFinished < needed) {
      if (this.#loading) {
        await this.#loading;
        continue;
      }
      const wait = this.#lastLoad + RELOAD_MIN_INTERVAL_MS - Date.now();
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        // Another waiter may have loaded meanwhile (a SQLite load completes within one tick): look again.
        continue;
      }
      await this.reload();
    }
  }

  /**
   * Creates a client's first key pair (32-byte key, 16-byte IV) and, when `settings` accept the GCM form,
   * its GCM key, sealed under MASTER_KEY, in one row with the settings (a provider never exists for a moment
   * in a weaker mode than asked). Returns the hex values when this call created them, undefined when the
   * client already had keys.
   */
  async createClientKeys(
    clientId: string,
    settings: ConsumptionSettings = SPEC_CONSUMPTION,
  ): Promise<{ keyHex: string; ivHex: string; gcmKeyHex: string | undefined } | undefined> {
    if (await this.store.findClientKeys(clientId)) return undefined;
    const secret = randomBytes(CTR_KEY_BYTES + CTR_IV_BYTES);
    const gcmKey = settings.mode === 'ctr' ? undefined : randomBytes(GCM_KEY_BYTES);
    try {
      const now = Date.now();
      const created = await this.store.insertClientKeys({
        clientId,
        ctrSecretSealed: this.secretBox.seal(secret, sealAad.ctr(clientId)),
        gcmKeySealed: gcmKey ? this.secretBox.seal(gcmKey, sealAad.gcm(clientId)) : undefined,
        payloadMode: settings.mode,
        consumeAuth: settings.consumeAuth,
        createdAt: now,
        updatedAt: now,
      });
      if (!created) return undefined;
      const shown = {
        keyHex: secret.subarray(0, CTR_KEY_BYTES).toString('hex'),
        ivHex: secret.subarray(CTR_KEY_BYTES).toString('hex'),
        gcmKeyHex: gcmKey?.toString('hex'),
      };
      await this.#loadClient(clientId);
      return shown;
    } finally {
      secret.fill(0);
      gcmKey?.fill(0);
    }
  }

  /** Issues the client's GCM key if it has none; returns its hex when this call created it. */
  async createGcmKey(clientId: string): Promise<string | undefined> {
    const key = randomBytes(GCM_KEY_BYTES);
    try {
      const created = await this.store.setGcmKeyIfAbsent(
        clientId,
        this.secretBox.seal(key, sealAad.gcm(clientId)),
        Date.now(),
      );
      const hex = created ? key.toString('hex') : undefined;
      await this.#loadClient(clientId);
      return hex;
    } finally {
      key.fill(0);
    }
  }

  /** Changes which payload forms the client accepts. */
  async setMode(clientId: string, mode: PayloadMode): Promise<void> {
    await this.store.setPayloadMode(clientId, mode, Date.now());
    await this.#loadClient(clientId);
  }

  /** Changes whether the client's consumption calls must carry its app's credentials. */
  async setConsumeAuth(clientId: string, consumeAuth: ConsumeAuth): Promise<void> {
    await this.store.setConsumeAuth(clientId, consumeAuth, Date.now());
    await this.#loadClient(clientId);
  }

  async modeOf(
    clientId: string,
  ): Promise<{ mode: PayloadMode; consumeAuth: ConsumeAuth; hasGcmKey: boolean } | undefined> {
    const keys = await this.#keysOf(clientId);
    return keys
      ? { mode: keys.mode, consumeAuth: keys.consumeAuth, hasGcmKey: keys.gcmKey !== undefined }
      : undefined;
  }

  /** The client's legacy key and IV as hex (for the CLI that shows them again); the caller must not log them. */
  async revealCtrKeys(clientId: string): Promise<{ keyHex: string; ivHex: string } | undefined> {
    const sealed = await this.store.findClientKeys(clientId);
    if (!sealed) return undefined;
    const secret = this.secretBox.open(sealed.ctrSecretSealed, sealAad.ctr(clientId));
    try {
      return {
        keyHex: secret.subarray(0, CTR_KEY_BYTES).toString('hex'),
        ivHex: secret.subarray(CTR_KEY_BYTES).toString('hex'),
      };
    } finally {
      secret.fill(0);
    }
  }

  /** AES-256-CTR of `text` under the client's key and IV, as hex (spec: `test_encryption`). */
  async encryptCtr(clientId: string, text: string): Promise<string | undefined> {
    const keys = await this.#keysOf(clientId);
    return keys ? ctrTransform(keys.ctrKey, keys.ctrIv, text).toString('hex') : undefined;
  }

  /**
   * Finds the provider key that opens `message` and decrypts it. With `clientIdHint` only that client's
   * keys are tried. The legacy form without a hint is looked up through the prefix index. The caller still
   * checks that the plaintext is a well-formed payload naming that client (`verify`).
   */
  async open(
    message: string,
    clientIdHint: string | undefined,
    verify: (plaintext: Buffer, clientId: string) => boolean,
  ): Promise<OpenedPayload> {
    const gcm = parseGcmMessage(message);
    if (gcm) {
      if (clientIdHint === undefined) {
        throw new AppError(
          400,
          'invalid_request',
          'client_id is required with the authenticated (gcm1:) payload form',
          {
            field: 'client_id',
          },
        );
      }
      const keys = await this.#keysOf(clientIdHint);
      if (!keys?.gcmKey || keys.mode === 'ctr') throw invalidPayload();
      const plaintext = gcmOpen(keys.gcmKey, gcm, gcmAad(keys.clientId));
      if (!plaintext || !verify(plaintext, keys.clientId)) throw invalidPayload();
      return {
        clientId: keys.clientId,
        form: 'gcm',
        consumeAuth: keys.consumeAuth,
        plaintext,
        nonce: Buffer.from(gcm.iv),
      };
    }

    const ciphertext = hexToBytes(message);
    if (!ciphertext || ciphertext.length < 2) throw invalidPayload();
    if (clientIdHint !== undefined) {
      const keys = await this.#keysOf(clientIdHint);
      if (!keys) throw invalidPayload();
      const opened = this.#tryCtr(keys, ciphertext, verify);
      if (opened) return opened;
      if (keys.mode === 'gcm') {
        throw new AppError(
          401,
          'payload_form_not_allowed',
          'This provider requires the authenticated (gcm1:) payload form',
        );
      }
      throw invalidPayload();
    }
    const nextLoad = this.#loadsStarted + 1;
    let found = this.#lookupCtr(ciphertext, verify);
    if (!found) {
      await this.#catchUp(nextLoad);
      found = this.#lookupCtr(ciphertext, verify);
    }
    if (!found) throw invalidPayload();
    return found;
  }

  #lookupCtr(
    ciphertext: Buffer,
    verify: (plaintext: Buffer, clientId: string) => boolean,
  ): OpenedPayload | undefined {
    for (const clientId of this.#byPrefix2.get((ciphertext[0]! << 8) | ciphertext[1]!) ?? []) {
      const keys = this.#byClient.get(clientId);
      const opened = keys && this.#tryCtr(keys, ciphertext, verify);
      if (opened) return opened;
    }
    return undefined;
  }

  #tryCtr(
    keys: ClientKeys,
    ciphertext: Buffer,
    verify: (plaintext: Buffer, clientId: string) => boolean,
  ): OpenedPayload | undefined {
    if (keys.mode === 'gcm') return undefined;
    const plaintext =
      ctrWithKeystream(keys.ctrKeystream, ciphertext) ?? ctrTransform(keys.ctrKey, keys.ctrIv, ciphertext);
    return verify(plaintext, keys.clientId)
      ? { clientId: keys.clientId, form: 'ctr', consumeAuth: keys.consumeAuth, plaintext, nonce: undefined }
      : undefined;
  }

  async #keysOf(clientId: string): Promise<ClientKeys | undefined> {
    return this.#byClient.get(clientId) ?? (await this.#loadClient(clientId));
  }

  async #loadClient(clientId: string): Promise<ClientKeys | undefined> {
    const row = await this.store.findClientKeys(clientId);
    return row ? this.#install(row) : undefined;
  }

  #install(row: SealedClientKeys): ClientKeys {
    const current = this.#byClient.get(row.clientId);
    if (
      current &&
      (current.updatedAt > row.updatedAt ||
        (current.updatedAt === row.updatedAt &&
          current.mode === row.payloadMode &&
          current.consumeAuth === row.consumeAuth &&
          (current.gcmKey !== undefined) === (row.gcmKeySealed !== undefined)))
    ) {
      return current;
    }
    const secret = this.secretBox.open(row.ctrSecretSealed, sealAad.ctr(row.clientId));
    let keys: ClientKeys;
    try {
      const ctrIv = Buffer.from(secret.subarray(CTR_KEY_BYTES));
      const ctrKey = secretKeyFrom(Buffer.from(secret.subarray(0, CTR_KEY_BYTES)), CTR_KEY_BYTES);
      const gcmKey = row.gcmKeySealed
        ? secretKeyFrom(this.secretBox.open(row.gcmKeySealed, sealAad.gcm(row.clientId)), GCM_KEY_BYTES)
        : undefined;
      const stream = ctrKeystreamPrefix(ctrKey, ctrIv, CTR_KEYSTREAM_HELD);
      keys = {
        clientId: row.clientId,
        ctrKey,
        ctrIv,
        ctrKeystream: stream,
        gcmKey,
        mode: row.payloadMode,
        consumeAuth: row.consumeAuth,
        updatedAt: row.updatedAt,
        prefix2: ((stream[0]! ^ OPEN_BRACE) << 8) | (stream[1]! ^ QUOTE),
      };
    } finally {
      secret.fill(0);
    }
    if (current) this.#unindex(current);
    this.#byClient.set(keys.clientId, keys);
    // A provider that requires the authenticated form is left out of the legacy index entirely.
    if (keys.mode !== 'gcm') {
      bucket(this.#byPrefix2, keys.prefix2).add(keys.clientId);
    }
    return keys;
  }

  #unindex(keys: ClientKeys): void {
    this.#byPrefix2.get(keys.prefix2)?.delete(keys.clientId);
  }
}

function bucket(map: Map<number, Set<string>>, key: number): Set<string> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}
