import type { Actor, AppAction } from '../orgs/roles.js';
import { randomBytes } from 'node:crypto';
import { checksumAddress, sameAddress } from '../../chain/address.js';
import type { OperationOwner } from '../../chain/operations/operationOwner.js';
import type { OnChainPolicy, SessionAccountGateway } from '../../chain/sessionAccountGateway.js';
import type { Address, Call, Hash, Hex } from '../../chain/types.js';
import type { SecretBox } from '../../crypto/secretBox.js';
import { AppError, invalidField, isOutcomeUnknown, OperationReverted } from '../../errors.js';
import type {
  SessionKeyRecord,
  SessionKeyStore,
  StoredWalletPolicy,
  WalletPolicy,
} from '../../stores/sessionKeyStore.js';
import type { PinProof } from '../custody/custodyDeps.js';
import { checkSessionCalls } from './policyCheck.js';
import { describeWalletPolicy, type TokenInfo, type WalletPolicyWording } from './policyWording.js';
import {
  appNotApproved,
  outsideSessionPolicy,
  sessionKeyNotFound,
  sessionKeysUnavailable,
  walletPolicyNotFound,
} from './sessionKeyErrors.js';
import {
  checkStoredPolicy,
  checkWalletPolicy,
  type GrantLimits,
  type WalletPolicyInput,
} from './walletPolicy.js';

export type { StoredWalletPolicy, WalletPolicy };

/** The chain side (`chain/sessionAccountGateway.ts`), as a port. */
export type SessionAccountChain = Pick<
  SessionAccountGateway,
  | 'platformContracts'
  | 'entryPoint'
  | 'paymaster'
  | 'accountAddress'
  | 'deployAccount'
  | 'changeOwnerCallData'
  | 'addSessionKeyCall'
  | 'revokeCallData'
  | 'submit'
  | 'sessionSigner'
  | 'keyAddress'
  | 'chainDay'
  | 'chainNow'
  | 'session'
  | 'valueSpent'
  | 'tokenSpent'
  | 'tokenInfo'
>;

/** The main wallet's owner key, unlocked by the PIN (`CustodyService.withMainWalletOwner`). */
export interface MainWalletOwner {
  withMainWalletOwner<T>(
    userUuid: number,
    proof: PinProof,
    use: (owner: OperationOwner, wallet: { address: Address; salt: bigint }) => Promise<T>,
  ): Promise<T>;
}

export interface SessionKeyApps {
  /** The app, or undefined when unknown or deleted. */
  findClient(clientId: string): Promise<{ clientId: string; ownerUuid: number; name: string } | undefined>;
  /** The apps the user approved and still holds a live grant for. */
  approvedApps(userUuid: number): Promise<{ clientId: string }[]>;
  /** The management check (`AppAccess.require`, docs/orgs.md): a member of the app's org with the role. */
  require(clientId: string, actor: Actor, action: AppAction): Promise<unknown>;
}

export interface SessionKeyLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface GrantedSessionKey {
  sessionKey: Address;
  validUntil: number;
  policy: WalletPolicy;
  userOpHash: Hash;
  txHash: Hash;
}

export interface SessionKeyView {
  clientId: string;
  clientName: string;
  sessionKey: Address;
  validUntil: number;
  policy: WalletPolicy;
  spentToday: { valueWei: bigint; tokens: { token: Address; amount: bigint }[] };
  createdAt: number;
  txHash: string | undefined;
}

export interface SessionOperationResult {
  userOpHash: Hash;
  txHash: Hash;
  results: { call_index: number; to: Address; success: boolean }[];
}

/** Most calls one session operation may carry. */
export const MAX_SESSION_CALLS = 16;

const keyAad = (key: string) => `session_key:${key.toLowerCase()}`;

/**
 * Wallet grants on chain (docs/session-keys.md): an app's wallet policy; the player's grant with the PIN (the
 * first one hands the main wallet to its `DauthSessionAccount`, crash-safe through the intent row); session
 * operations with the app's access token, pre-checked off chain with the contract's rules; revocation by the
 * player, by the key itself, and in the background when the app grant ends.
 */
export class SessionKeyService {
  #sweeping: Promise<void> | undefined;
  /** Keys whose background revocation failed: when to try again (backoff doubles up to 10 minutes). */
  readonly #retry = new Map<string, { at: number; delayMs: number }>();

  constructor(
    private readonly store: SessionKeyStore,
    private readonly chain: SessionAccountChain,
    private readonly custody: MainWalletOwner,
    private readonly apps: SessionKeyApps,
    private readonly box: Pick<SecretBox, 'seal' | 'open'>,
    private readonly logger: SessionKeyLogger,
    private readonly now: () => number = Date.now,
    /** The sponsorship cap a grant must fit (`SPONSOR_MAX_OPERATION_GAS`). */
    private readonly limits: GrantLimits = {},
  ) {}

  // ---- wallet policy (the app owner) ----

  async putPolicy(actor: Actor, clientId: string, input: WalletPolicyInput): Promise<StoredWalletPolicy> {
    await this.apps.require(clientId, actor, 'configure');
    const policy = checkWalletPolicy(input, this.chain.platformContracts, this.limits);
    return this.store.putPolicy(clientId, policy, this.now());
  }

  async getPolicy(actor: Actor, clientId: string): Promise<StoredWalletPolicy> {
    await this.apps.require(clientId, actor, 'read');
    const stored = await this.store.findPolicy(clientId);
    if (!stored) throw walletPolicyNotFound();
    return stored;
  }

  async deletePolicy(actor: Actor, clientId: string): Promise<void> {
    await this.apps.require(clientId, actor, 'configure');
    if (!(await this.store.deletePolicy(clientId))) throw walletPolicyNotFound();
  }

  /** The app's policy in terms for the consent pages to word; undefined when the app has none. */
  async describePolicy(clientId: string): Promise<WalletPolicyWording | undefined> {
    const stored = await this.store.findPolicy(clientId);
    if (!stored) return undefined;
    return describeWalletPolicy(stored.policy, await this.#tokenInfo(stored.policy), this.now());
  }

  async #tokenInfo(policy: WalletPolicy): Promise<Map<string, TokenInfo>> {
    const info = new Map<string, TokenInfo>();
    for (const limit of policy.token_limits) {
      try {
        info.set(limit.token.toLowerCase(), await this.chain.tokenInfo(limit.token as Address));
      } catch (err) {
        this.logger.warn(
          { err, token: limit.token },
          'token symbol/decimals unreadable; shown as base units',
        );
      }
    }
    return info;
  }

  // ---- the player's grant ----

  /**
   * Registers a fresh session key for `clientId` with the app's policy on the player's main wallet, signed by
   * the owner key the PIN unlocks. The first grant deploys the wallet's session account (operator wallet,
   * CREATE2) and hands the wallet to it (`changeOwner`), recorded as an intent row first, so a retry after a
   * crash finishes it. An earlier key of the app is revoked in the same operation.
   */
  async grant(userUuid: number, clientId: string, proof: PinProof): Promise<GrantedSessionKey> {
    const client = await this.apps.findClient(clientId);
    if (!client) throw new AppError(404, 'client_not_found', 'No app with this client_id');
    const stored = await this.store.findPolicy(clientId);
    if (!stored) throw walletPolicyNotFound();
    if (!(await this.#approved(userUuid, clientId))) throw appNotApproved();
    const policy = stored.policy;
    // A policy stored before the rules it now breaks (a value-moving selector, its size, or a lowered
    // SPONSOR_MAX_OPERATION_GAS): refused before the PIN is used or anything is sent, rather than granted with
    // powers no policy may carry now, or refused by the paymaster after the wallet's upgrade.
    checkStoredPolicy(policy, this.limits);

    return this.custody.withMainWalletOwner(userUuid, proof, async (owner, wallet) => {
      const account = await this.#ensureAccount(userUuid, wallet, owner);
      const replaced = await this.#liveKeysOnChain(userUuid, clientId, account);

      const secret = randomBytes(32);
      try {
        const key = this.chain.keyAddress(secret);
        const validUntil = (await this.chain.chainNow()) + policy.valid_for_seconds;
        await this.store.insertPendingKey({
          keyAddress: key,
          userUuid,
          clientId,
          walletAddress: wallet.address,
          accountAddress: account,
          keySealed: this.box.seal(secret, keyAad(key)),
          policy,
          validUntil,
          createdAt: this.now(),
        });
        const calls: Call[] = [
          ...replaced.map((old) => ({ to: account, data: this.chain.revokeCallData(old as Address) })),
          this.chain.addSessionKeyCall(account, key, onChainPolicy(policy, validUntil)),
        ];
        let result;
        try {
          result = await this.chain.submit(account, { calls }, owner);
        } catch (err) {
          // Nothing was sent: the key never existed on chain. Outcome unknown: left pending (see reconcile).
          if (!isOutcomeUnknown(err)) await this.store.failKey(key);
          throw err;
        }
        if (!result.success) {
          await this.store.failKey(key);
          throw OperationReverted.included(result);
        }
        await this.store.activateKey(key, result.txHash, this.now(), replaced);
        this.logger.info({ userUuid, clientId, sessionKey: key }, 'session key granted');
        return {
          sessionKey: checksumAddress(key),
          validUntil,
          policy,
          userOpHash: result.userOpHash,
          txHash: result.txHash,
        };
      } finally {
        secret.fill(0);
      }
    });
  }

  async #approved(userUuid: number, clientId: string): Promise<boolean> {
    return (await this.apps.approvedApps(userUuid)).some((a) => a.clientId === clientId);
  }

  /**
   * The wallet's session account, deployed and owning the wallet. The intent row is written before anything is
   * sent; deployment is idempotent (CREATE2) and `changeOwner` is skipped when the chain already shows it.
   */
  async #ensureAccount(
    userUuid: number,
    wallet: { address: Address; salt: bigint },
    owner: OperationOwner,
  ): Promise<Address> {
    // Read after `withMainWalletOwner` checked the wallet's on-chain owner: a pending row whose changeOwner landed
    // was resolved (and activated) there; a row still pending means the owner key still owns the wallet directly.
    const existing = await this.store.findAccount(wallet.address);
    if (existing?.state === 'active') return checksumAddress(existing.accountAddress);
    const account = this.chain.accountAddress(wallet.address, owner.address);
    await this.store.recordPendingAccount(wallet.address, userUuid, account, this.now());
    try {
      await this.chain.deployAccount(wallet.address, owner.address);
    } catch (err) {
      if (err instanceof AppError) throw err;
      this.logger.error({ err }, 'session account deployment failed');
      throw sessionKeysUnavailable('The wallet upgrade for session keys could not be deployed on this chain');
    }
    const result = await this.chain.submit(
      wallet.address,
      { callData: this.chain.changeOwnerCallData(account) },
      owner,
    );
    if (!result.success) throw OperationReverted.included(result);
    await this.store.activateAccount(wallet.address, result.txHash);
    this.logger.info({ userUuid, wallet: wallet.address, account }, 'wallet handed to its session account');
    return account;
  }

  /**
   * The app's earlier keys of this user still registered on chain (to be revoked with the new grant). A key left
   * pending by a crash is settled here: active on chain → it counts, else it is failed.
   */
  async #liveKeysOnChain(userUuid: number, clientId: string, account: Address): Promise<string[]> {
    const keys = await this.store.keysOf(userUuid, clientId, ['pending', 'active', 'revoking']);
    const live: string[] = [];
    for (const k of keys) {
      const onChain = await this.chain.session(account, k.keyAddress as Address);
      if (k.state === 'pending') {
        if (onChain.active) await this.store.activateKey(k.keyAddress, '', this.now());
        else {
          await this.store.failKey(k.keyAddress);
          continue;
        }
      }
      if (onChain.active) live.push(k.keyAddress);
      else await this.store.markRevoked(k.keyAddress, undefined, 'replaced', this.now());
    }
    return live;
  }

  // ---- listing ----

  async list(userUuid: number): Promise<SessionKeyView[]> {
    const keys = await this.store.activeKeysOfUser(userUuid);
    if (keys.length === 0) return [];
    const day = await this.chain.chainDay();
    const views: SessionKeyView[] = [];
    for (const k of keys) {
      const account = k.accountAddress as Address;
      const key = k.keyAddress as Address;
      const [client, valueWei, tokens] = await Promise.all([
        this.apps.findClient(k.clientId),
        this.chain.valueSpent(account, key, day),
        Promise.all(
          k.policy.token_limits.map(async (t) => ({
            token: checksumAddress(t.token),
            amount: await this.chain.tokenSpent(account, key, t.token as Address, day),
          })),
        ),
      ]);
      views.push({
        clientId: k.clientId,
        clientName: client?.name ?? k.clientId,
        sessionKey: checksumAddress(k.keyAddress),
        validUntil: k.validUntil,
        policy: k.policy,
        spentToday: { valueWei, tokens },
        createdAt: k.createdAt,
        txHash: k.txHash,
      });
    }
    return views;
  }

  // ---- session operations (the app's backend, with the player's access token) ----

  /**
   * One sponsored operation from the player's wallet signed by the app's session key. Refused before anything is
   * signed (403 `outside_session_policy`, `details.call_index`/`reason`) when any call is outside the policy.
   */
  async operate(userUuid: number, clientId: string, calls: Call[]): Promise<SessionOperationResult> {
    if (calls.length === 0 || calls.length > MAX_SESSION_CALLS) {
      throw invalidField('calls', `calls must hold 1 to ${MAX_SESSION_CALLS} calls`);
    }
    const [k] = await this.store.keysOf(userUuid, clientId, ['active']);
    if (!k) throw sessionKeyNotFound();
    const day = await this.chain.chainDay();
    try {
      return await this.#operateOn(day, k, calls);
    } catch (err) {
      // Signed for a day that ended before a block took it (the EntryPoint judged it outside its window, so
      // it did not run and never will): once more, for the new day, against the new day's caps.
      if (!(err instanceof AppError && err.code === 'operation_expired')) throw err;
      const today = await this.chain.chainDay({ fresh: true });
      if (today <= day) throw err;
      return this.#operateOn(today, k, calls);
    }
  }

  async #operateOn(day: number, k: SessionKeyRecord, calls: Call[]): Promise<SessionOperationResult> {
    const account = k.accountAddress as Address;
    const key = k.keyAddress as Address;
    const now = await this.chain.chainNow();
    const used = calls.map((c) => c.to.toLowerCase());
    const tokens = k.policy.token_limits.filter((t) => used.includes(t.token.toLowerCase()));
    const [valueSpentToday, tokenSpent] = await Promise.all([
      this.chain.valueSpent(account, key, day),
      Promise.all(
        tokens.map(
          async (t) =>
            [
              t.token.toLowerCase(),
              await this.chain.tokenSpent(account, key, t.token as Address, day),
            ] as const,
        ),
      ),
    ]);
    const verdict = checkSessionCalls(k.policy, calls, {
      forbidden: [account, k.walletAddress as Address, this.chain.entryPoint, this.chain.paymaster],
      now,
      validUntil: k.validUntil,
      valueSpentToday,
      tokenSpentToday: new Map(tokenSpent),
    });
    if (!verdict.ok) throw outsideSessionPolicy(verdict.callIndex, verdict.reason);

    const result = await this.#withKey(
      k,
      (signer) => this.chain.submit(account, { calls }, signer, { session: true, clientId: k.clientId }),
      day,
    );
    if (!result.success) throw OperationReverted.included(result);
    return {
      userOpHash: result.userOpHash,
      txHash: result.txHash,
      results: calls.map((c, i) => ({ call_index: i, to: checksumAddress(c.to), success: true })),
    };
  }

  async #withKey<T>(
    k: SessionKeyRecord,
    use: (signer: OperationOwner) => Promise<T>,
    day?: number,
  ): Promise<T> {
    const secret = this.box.open(k.keySealed, keyAad(k.keyAddress));
    try {
      if (!sameAddress(this.chain.keyAddress(secret), k.keyAddress))
        throw new Error('sealed session key does not match');
      return await use(this.chain.sessionSigner(secret, day ?? (await this.chain.chainDay())));
    } finally {
      secret.fill(0);
    }
  }

  // ---- revocation ----

  /** The player revokes the app's key (no PIN): the key signs its own `revokeSessionKey`. */
  async revoke(userUuid: number, clientId: string): Promise<{ txHash: Hash | undefined }> {
    // Off chain first: marked 'revoking', the key signs nothing for the app any more. If the on-chain revocation
    // below fails (the chain is down), the error is answered and the background sweep completes it.
    await this.store.markRevoking(userUuid, clientId, 'revoked_by_user');
    const [k] = await this.store.keysOf(userUuid, clientId, ['revoking']);
    if (!k) throw sessionKeyNotFound();
    let txHash: Hash | undefined;
    try {
      txHash = await this.#revokeOnChain(k);
    } catch (err) {
      // The background sweep may have revoked it meanwhile (then this operation was refused): done all the same.
      const onChain = await this.chain.session(k.accountAddress as Address, k.keyAddress as Address);
      if (onChain.active) throw err;
    }
    await this.store.markRevoked(k.keyAddress, txHash, 'revoked_by_user', this.now());
    this.logger.info({ userUuid, clientId, sessionKey: k.keyAddress }, 'session key revoked');
    return { txHash };
  }

  /** Revokes `k` on chain with its own signature; undefined when there is nothing left to revoke (expired, gone). */
  async #revokeOnChain(k: SessionKeyRecord): Promise<Hash | undefined> {
    const account = k.accountAddress as Address;
    const key = k.keyAddress as Address;
    const onChain = await this.chain.session(account, key);
    if (!onChain.active) return undefined;
    // An expired key cannot sign (the EntryPoint refuses its window) and can never act again: nothing to send.
    if (onChain.validUntil <= (await this.chain.chainNow())) return undefined;
    const result = await this.#withKey(k, (signer) =>
      this.chain.submit(account, { callData: this.chain.revokeCallData(key) as Hex }, signer, {
        session: true,
      }),
    );
    if (!result.success) throw OperationReverted.included(result);
    return result.txHash;
  }

  /**
   * One pass of the background revocation: keys marked for it, and active keys whose app grant ended (revoked by
   * the player, a password reset, the app deleted). Read from the database each time, so nothing is lost to a
   * crash; a failure is retried after a delay that doubles (2 s … 10 min).
   */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const keys = await this.store.keysToRevoke();
    for (const k of keys) {
      const retry = this.#retry.get(k.keyAddress);
      if (retry && retry.at > this.now()) continue;
      try {
        const txHash = await this.#revokeOnChain(k);
        await this.store.markRevoked(k.keyAddress, txHash, k.revokeReason ?? 'grant_ended', this.now());
        this.#retry.delete(k.keyAddress);
        this.logger.info(
          { userUuid: k.userUuid, clientId: k.clientId, sessionKey: k.keyAddress },
          'session key revoked (app grant ended)',
        );
      } catch (err) {
        // Off chain the key is already refused; the on-chain revocation is retried with a growing delay (it can
        // fail for as long as, e.g., the player's sponsorship budget of the day is spent).
        const delayMs = Math.min((retry?.delayMs ?? 1_000) * 2, 600_000);
        this.#retry.set(k.keyAddress, { at: this.now() + delayMs, delayMs });
        this.logger.warn(
          { err, sessionKey: k.keyAddress, retryInMs: delayMs },
          'session key revocation failed; retried later',
        );
      }
    }
  }
}

/** The stored policy as the contract's struct. */
export function onChainPolicy(policy: WalletPolicy, validUntil: number): OnChainPolicy {
  return {
    calls: policy.calls.flatMap((c) => c.selectors.map((s) => ({ to: c.to as Address, selector: s as Hex }))),
    maxValuePerCall: BigInt(policy.max_value_per_call_wei),
    maxValuePerDay: BigInt(policy.max_value_per_day_wei),
    tokenLimits: policy.token_limits.map((t) => ({ token: t.token as Address, perDay: BigInt(t.per_day) })),
    validUntil,
  };
}
