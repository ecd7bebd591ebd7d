import type { Logger } from 'pino';
import type { Address } from '../../chain/types.js';
import { AppError, conflict, forbidden, notFound } from '../../errors.js';
import type { ContentProviderStore, PayloadMode } from '../../stores/contentProviderStore.js';
import type { ClientDirectory, ContentTokenChain } from './ports.js';
import type { ProviderDirectory } from './providerDirectory.js';
import type { ProviderKeyring } from './providerKeyring.js';

/** A `registering` claim older than this may be taken over by another client if the chain never got it. */
const STALE_CLAIM_MS = 10 * 60_000;
const CUID_PATTERN = /^[\x21-\x7e]{1,128}$/;

export interface RegistrationResult {
  txHash: string;
  /** Present on the client's first registration only (one pair per client). */
  encryptionKey?: string;
  encryptionIv?: string;
}

export const isOutcomeUnknown = (err: unknown): boolean =>
  err instanceof Error && err.name === 'OperationOutcomeUnknownError';

/**
 * Provider registration (`init_permission_provider`), the payload-form setting, and `test_encryption`.
 * Every call is made by the OAuth client's owner (login JWT), checked here.
 */
export class ProviderService {
  constructor(
    private readonly store: ContentProviderStore,
    private readonly directory: ProviderDirectory,
    private readonly keyring: ProviderKeyring,
    private readonly clients: ClientDirectory,
    private readonly chain: ContentTokenChain,
    private readonly logger: Logger,
    /** Checksums an address (viem `getAddress` in the composition root); throws on a malformed one. */
    private readonly checksum: (address: string) => Address,
  ) {}

  /** 404 when the client does not exist, 403 when the caller does not own it. */
  async requireClientOwner(clientId: string, userUuid: number): Promise<void> {
    const owner = await this.clients.ownerOf(clientId);
    if (owner === undefined) throw notFound('unknown_client', 'No OAuth client with this client_id');
    if (owner !== userUuid) throw forbidden('not_client_owner', 'Only the owner of this client may do this');
  }

  async register(
    userUuid: number,
    input: { clientId: string; cuid: string; releasePer: number; ownerAddr: string },
  ): Promise<RegistrationResult> {
    if (!CUID_PATTERN.test(input.cuid)) {
      throw new AppError(
        400,
        'invalid_request',
        'cuid must be 1 to 128 printable characters without spaces',
        {
          field: 'cuid',
        },
      );
    }
    if (!Number.isInteger(input.releasePer) || input.releasePer < 0 || input.releasePer > 100) {
      throw new AppError(400, 'invalid_request', 'release_per must be an integer from 0 to 100', {
        field: 'release_per',
      });
    }
    const ownerAddr = this.#address(input.ownerAddr, 'owner_addr');
    if (/^0x0{40}$/.test(ownerAddr)) {
      throw new AppError(400, 'invalid_request', 'owner_addr must not be the zero address', {
        field: 'owner_addr',
      });
    }
    await this.requireClientOwner(input.clientId, userUuid);

    const now = Date.now();
    let claimedAt: number | undefined;
    const existing = await this.store.findProvider(input.cuid);
    if (!existing) {
      const claimed = await this.store.claim({
        cuid: input.cuid,
        clientId: input.clientId,
        releasePer: input.releasePer,
        ownerAddr,
        state: 'registering',
        txHash: undefined,
        createdAt: now,
        updatedAt: now,
      });
      if (claimed) claimedAt = now;
      else {
        const winner = await this.store.findProvider(input.cuid);
        if (winner && winner.clientId !== input.clientId) throw cuidTaken();
      }
    } else if (existing.clientId !== input.clientId) {
      if (existing.state !== 'registering' || now - existing.updatedAt < STALE_CLAIM_MS) throw cuidTaken();
      // The other client's first registration never completed; take it over only if the chain agrees.
      const onChain = await this.chain.readProvider(input.cuid);
      if (onChain && onChain.clientId !== input.clientId) throw cuidTaken();
      if (!(await this.store.takeOverStaleClaim(input.cuid, existing.updatedAt, input.clientId, now)))
        throw cuidTaken();
      claimedAt = now;
    }

    let txHash: string;
    try {
      const write = await this.chain.registerProvider({
        clientId: input.clientId,
        cuid: input.cuid,
        releasePer: input.releasePer,
        ownerAddr,
      });
      txHash = write.txHash;
    } catch (err) {
      // A claim this call made is released unless the write may still land (then a retry completes it).
      if (claimedAt !== undefined && !isOutcomeUnknown(err)) {
        await this.store.releaseClaim(input.cuid, input.clientId, claimedAt).catch(() => undefined);
      }
      if ((err as { revert?: { name?: string } }).revert?.name === 'CuidTaken') throw cuidTaken();
      throw err;
    }
    await this.store.markRegistered(
      input.cuid,
      input.clientId,
      { releasePer: input.releasePer, ownerAddr, txHash },
      Date.now(),
    );
    this.directory.forget(input.cuid);
    const keys = await this.keyring.createClientKeys(input.clientId);
    this.logger.info(
      { cuid: input.cuid, clientId: input.clientId, txHash, firstRegistration: keys !== undefined },
      'content provider registered',
    );
    return keys ? { txHash, encryptionKey: keys.keyHex, encryptionIv: keys.ivHex } : { txHash };
  }

  /**
   * Sets which payload forms the client's consumption calls may use. Switching on a mode with the
   * authenticated form issues the client's GCM key the first time (returned once).
   */
  async setPayloadMode(
    userUuid: number,
    clientId: string,
    mode: PayloadMode,
  ): Promise<{ mode: PayloadMode; gcmKey: string | undefined }> {
    await this.requireClientOwner(clientId, userUuid);
    if (!(await this.keyring.modeOf(clientId))) throw notRegistered();
    const gcmKey = mode === 'ctr' ? undefined : await this.keyring.createGcmKey(clientId);
    await this.keyring.setMode(clientId, mode);
    this.logger.info({ clientId, mode }, 'content provider payload mode changed');
    return { mode, gcmKey };
  }

  async payloadMode(userUuid: number, clientId: string): Promise<{ mode: PayloadMode; hasGcmKey: boolean }> {
    await this.requireClientOwner(clientId, userUuid);
    const mode = await this.keyring.modeOf(clientId);
    if (!mode) throw notRegistered();
    return mode;
  }

  /** `test_encryption`: the hex AES-256-CTR of `text` under the client's key and IV. */
  async testEncryption(userUuid: number, clientId: string, text: string): Promise<string> {
    await this.requireClientOwner(clientId, userUuid);
    const encrypted = await this.keyring.encryptCtr(clientId, text);
    if (encrypted === undefined) throw notRegistered();
    return encrypted;
  }

  /** The client's legacy key and IV (for the `dauth` CLI, which shows them again to the platform operator). */
  async revealKeys(clientId: string): Promise<{ keyHex: string; ivHex: string } | undefined> {
    return this.keyring.revealCtrKeys(clientId);
  }

  #address(value: string, field: string): Address {
    if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
      throw new AppError(400, 'invalid_request', `${field} must be a 0x-prefixed 20-byte address`, { field });
    }
    try {
      return this.checksum(value);
    } catch {
      throw new AppError(400, 'invalid_request', `${field} has a wrong checksum`, { field });
    }
  }
}

const cuidTaken = () => conflict('cuid_taken', 'This cuid is registered to another client');
const notRegistered = () =>
  notFound('provider_not_registered', 'This client has not registered a content provider yet');
