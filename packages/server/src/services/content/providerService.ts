import type { Logger } from 'pino';
import { parseAddress, sameAddress } from '../../chain/address.js';
import type { Address } from '../../chain/types.js';
import {
  AppError,
  conflict,
  forbidden,
  isAppError,
  isOutcomeUnknown,
  isRevertNamed,
  notFound,
} from '../../errors.js';
import type { ConsumeAuth, ContentProviderStore, PayloadMode } from '../../stores/contentProviderStore.js';
import type { ClientDirectory } from '../oauth/clientDirectory.js';
import type { AppAccess } from '../orgs/appAccess.js';
import { type AppAction, userActor } from '../orgs/roles.js';
import type { ContentTokenChain } from './ports.js';
import type { ProviderDirectory } from './providerDirectory.js';
import { type ConsumptionSettings, type ProviderKeyring, SPEC_CONSUMPTION } from './providerKeyring.js';

/** A `registering` claim older than this may be taken over by another client if the chain never got it. */
const STALE_CLAIM_MS = 10 * 60_000;
const CUID_PATTERN = /^[\x21-\x7e]{1,128}$/;

export interface RegistrationResult {
  txHash: string;
  /** Present on the client's first registration only (one pair per client). */
  encryptionKey?: string;
  encryptionIv?: string;
  /** The AES-256-GCM key, once, when this call issued it (a payload mode with the authenticated form). */
  gcmKey?: string;
  /** The client's consumption settings after this call. */
  settings: ConsumptionSettings;
}

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
    /** Members of the app's organization by role (docs/orgs.md). */
    private readonly access: Pick<AppAccess, 'require'>,
  ) {}

  /**
   * 404 `unknown_client` when the client does not exist, 403 `not_client_owner` when the caller is not a
   * member of its organization (these routes' codes before organizations), 403 `forbidden_role` when the
   * caller's role is below the action's (`developer` changes, `viewer` reads).
   */
  async requireClientOwner(
    clientId: string,
    userUuid: number,
    action: AppAction = 'configure',
  ): Promise<void> {
    const client = await this.clients.findClient(clientId);
    if (client === undefined) throw notFound('unknown_client', 'No OAuth client with this client_id');
    try {
      await this.access.require(clientId, userActor(userUuid), action);
    } catch (err) {
      if (isAppError(err) && err.code === 'client_not_found') {
        throw forbidden('not_client_owner', 'Only a member of this client’s organization may do this');
      }
      throw err;
    }
  }

  /**
   * `init_permission_provider`. `settings` choose how consumption is authenticated: on the client's first
   * registration they are stored with its keys (default: the spec's CTR, anonymous); on a later one they
   * change the client's settings when given.
   */
  async register(
    userUuid: number,
    input: {
      clientId: string;
      cuid: string;
      releasePer: number;
      ownerAddr: string;
      settings?: Partial<ConsumptionSettings> | undefined;
    },
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
    } else if (existing.clientId === input.clientId) {
      await this.#refuseFrozenChange(existing, input.releasePer, ownerAddr);
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
      if (isRevertNamed(err, 'CuidTaken')) throw cuidTaken();
      if (isRevertNamed(err, 'TermsFrozen')) {
        // The platform enabled release after the check above: the contract is the last word; remember it.
        await this.store.freezeTerms(input.cuid, Date.now()).catch(() => undefined);
        throw termsFrozen();
      }
      throw err;
    }
    await this.store.markRegistered(
      input.cuid,
      input.clientId,
      { releasePer: input.releasePer, ownerAddr, txHash },
      Date.now(),
    );
    this.directory.forget(input.cuid);
    const keys = await this.keyring.createClientKeys(input.clientId, {
      ...SPEC_CONSUMPTION,
      ...input.settings,
    });
    let gcmKey = keys?.gcmKeyHex;
    if (!keys && input.settings) {
      if (input.settings.mode !== undefined) {
        gcmKey = (await this.setPayloadMode(userUuid, input.clientId, input.settings.mode)).gcmKey;
      }
      if (input.settings.consumeAuth !== undefined) {
        await this.setConsumeAuth(userUuid, input.clientId, input.settings.consumeAuth);
      }
    }
    const current = await this.keyring.modeOf(input.clientId);
    const settings = current ? { mode: current.mode, consumeAuth: current.consumeAuth } : SPEC_CONSUMPTION;
    this.logger.info(
      {
        cuid: input.cuid,
        clientId: input.clientId,
        txHash,
        firstRegistration: keys !== undefined,
        ...settings,
      },
      'content provider registered',
    );
    return {
      txHash,
      settings,
      ...(keys ? { encryptionKey: keys.keyHex, encryptionIv: keys.ivHex } : {}),
      ...(gcmKey ? { gcmKey } : {}),
    };
  }

  /** Whether the client's consumption calls must carry its app's credentials (HTTP Basic). */
  async setConsumeAuth(userUuid: number, clientId: string, consumeAuth: ConsumeAuth): Promise<ConsumeAuth> {
    await this.requireClientOwner(clientId, userUuid);
    if (!(await this.keyring.modeOf(clientId))) throw notRegistered();
    await this.keyring.setConsumeAuth(clientId, consumeAuth);
    this.logger.info({ clientId, consumeAuth }, 'content provider consumption authentication changed');
    return consumeAuth;
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

  async payloadMode(
    userUuid: number,
    clientId: string,
  ): Promise<{ mode: PayloadMode; consumeAuth: ConsumeAuth; hasGcmKey: boolean }> {
    await this.requireClientOwner(clientId, userUuid, 'read');
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

  /**
   * Once the platform enabled release for a cuid its settlement terms are frozen (decisions §7): a
   * provider raising `release_per` could otherwise drain a pool the platform funded. Only the admin
   * API changes them then (`SettlementService.amendTerms`). Frozen = recorded when release was
   * enabled here, or release enabled on chain now (enabled before the record existed). This check is
   * not serialised with the admin's switch; the contract refuses a change that races it (`TermsFrozen`).
   */
  async #refuseFrozenChange(
    existing: { cuid: string; releasePer: number; ownerAddr: string; termsFrozen: boolean; state: string },
    releasePer: number,
    ownerAddr: Address,
  ): Promise<void> {
    const changes = existing.releasePer !== releasePer || !sameAddress(existing.ownerAddr, ownerAddr);
    if (!changes) return;
    const frozen =
      existing.termsFrozen || (await this.chain.readProvider(existing.cuid))?.releaseEnabled === true;
    if (frozen) throw termsFrozen();
  }

  #address(value: string, field: string): Address {
    return parseAddress(value, field);
  }
}

export const termsFrozen = () =>
  conflict(
    'terms_frozen',
    'Release is enabled for this cuid: release_per and owner_addr change only with the platform’s approval (admin API)',
  );
const cuidTaken = () => conflict('cuid_taken', 'This cuid is registered to another client');
const notRegistered = () =>
  notFound('provider_not_registered', 'This client has not registered a content provider yet');
