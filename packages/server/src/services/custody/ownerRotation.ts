import { sameAddress } from '../../chain/address.js';
import { randomUUID } from 'node:crypto';
import { addressOfPrivateKey, ownerFromPrivateKey } from '../../chain/operations/operationOwner.js';
import { encryptMnemonicForPin, newServerShare, splitKey, wipe } from '../../crypto/keyShares.js';
import { mnemonicToOwnerKey, newOwnerMnemonic } from '../../crypto/ownerKey.js';
import { AppError } from '../../errors.js';
import type { Custody, PendingRotation } from '../../stores/custodyStore.js';
import type { Wallet } from '../../stores/walletStore.js';
import { custodyChanged, ownerMismatch, rotationInProgress, walletNotFound } from './custodyErrors.js';
import { type CustodyDeps, effectiveOwner, walletRef } from './custodyDeps.js';
import { storedOwnerKey } from './storedOwnerKey.js';
import type { Address } from './walletChain.js';

/** How long a request may drive a rotation before another may take it over (renewed per wallet). */
export const ROTATION_LEASE_MS = 120_000;

export interface RecoveredWallet {
  /** The main wallet: unchanged. */
  address: Address;
  /** The new mnemonic, readable by the holder of the new PIN (same format as register's `mnemonic`). */
  mnemonicEnc: string;
  /** 64 lowercase hex: the new client share. */
  keyShareUser: string;
}

/**
 * True for failures that prove the operation never reached the chain: a refusal (4xx, e.g. the
 * EntryPoint's simulation) or `chain_unavailable` before sending. `OperationOutcomeUnknownError`
 * (sent, outcome unknown) and anything unexpected count as possibly sent.
 */
const definitelyNotSent = (err: unknown): boolean =>
  err instanceof AppError &&
  err.name !== 'OperationOutcomeUnknownError' &&
  (err.status < 500 || err.code === 'chain_unavailable');

const rotationFailed = (wallet: Address, reason: string | undefined) =>
  new AppError(
    502,
    'rotation_failed',
    `changeOwner reverted on wallet ${wallet}${reason ? ` (${reason})` : ''}; the rotation will be retried by the next use of the wallet`,
  );

/**
 * Owner-key rotation (spec endpoint 12, "Wallet owner rotation") and its reconciliation.
 *
 * The chain change and the stored update cannot be one transaction, so a rotation is recorded as a
 * `pending_rotations` row (new owner, its sealed server share and mnemonic) *before* the first
 * `changeOwner` is sent, and deleted in the transaction that stores the new owner. While the row
 * exists, every use of the wallet first calls `reconcile`, which compares each wallet's on-chain
 * owner with the stored one, moves whatever still has the old owner, and stores the new owner:
 * a rotation, once possibly on chain, is always driven to completion, never dropped. One request
 * at a time drives it (a lease with expiry settles who).
 */
export class OwnerRotation {
  constructor(
    private readonly deps: CustodyDeps,
    private readonly leaseMs = ROTATION_LEASE_MS,
  ) {}

  /**
   * Called before any use of the user's wallet: completes a recorded rotation whose request did
   * not (a crash or a failed stored update after `changeOwner` landed). 409 `rotation_in_progress`
   * while another request drives it.
   *
   * When no rotation is pending it answers the custody row it read with that check (one statement for
   * both), which the caller may use instead of reading it again; undefined after completing a rotation
   * (the row changed) or when the user has no custody row.
   */
  async reconcile(userUuid: number): Promise<Custody | undefined> {
    const read = await this.deps.store.findWithPendingFlag(userUuid);
    if (read && !read.rotationPending) return read.custody;
    const pending = await this.deps.store.findPending(userUuid);
    if (!pending) return undefined;
    const leaseId = randomUUID();
    const now = Date.now();
    if (!(await this.deps.store.takeLease(userUuid, leaseId, now + this.leaseMs, now))) {
      throw rotationInProgress();
    }
    this.deps.logger.warn(
      { userUuid, oldOwner: pending.oldOwner, newOwner: pending.newOwner },
      'completing an interrupted owner rotation',
    );
    const custody = await this.deps.store.find(userUuid);
    if (!custody) throw walletNotFound();
    let oldKey: Buffer | undefined;
    try {
      if (sameAddress(custody.owner, pending.newOwner)) {
        // The new owner was stored but the row outlived it (cannot happen in one transaction; be safe).
        await this.deps.store.deletePending(userUuid, leaseId);
        return undefined;
      }
      if (!sameAddress(custody.owner, pending.oldOwner)) throw ownerMismatch();
      oldKey = await storedOwnerKey(this.deps.seal, custody, this.deps.sharePins.pool);
      await this.#drive({ ...pending, leaseId }, custody, oldKey, { sent: false });
      this.deps.logger.info({ userUuid, newOwner: pending.newOwner }, 'interrupted owner rotation completed');
      return undefined;
    } catch (err) {
      await this.deps.store.releaseLease(userUuid, leaseId).catch(() => undefined);
      throw err;
    } finally {
      wipe(oldKey);
    }
  }

  /**
   * Key rotation, the spec's eight rules in order. The caller has checked the verification token
   * and called `reconcile`; `authorise` (using the token) runs after the read-only rules 1–2. The new server share and mnemonic are recorded (sealed) as a pending
   * rotation before rule 4 sends anything, so rule 7 can be completed by a later request if this
   * one dies between the chain and the database.
   */
  async recover(
    userUuid: number,
    newPinHash: string,
    authorise: () => Promise<void> = async () => undefined,
  ): Promise<RecoveredWallet> {
    const { store, seal, chain, wallets } = this.deps;
    let oldKey: Buffer | undefined;
    let oldShareServer: Buffer | undefined;
    let newKey: Buffer | undefined;
    let newShareServer: Buffer | undefined;
    let sharePin: Buffer | undefined;
    let shareUser: Buffer | undefined;
    const leaseId = randomUUID();
    const progress = { sent: false };
    let recorded = false;
    try {
      // 1. Load the server share and decrypt the stored mnemonic.
      const custody = await store.find(userUuid);
      if (!custody) throw walletNotFound();
      oldShareServer = seal.openServerShare(
        custody.serverShareSealed,
        userUuid,
        custody.owner,
        custody.keyVersion,
      );
      // 2. Derive the old owner EOA and check it equals the stored owner (storedOwnerKey does), and
      //    check the on-chain owner of every wallet at the start.
      oldKey = await storedOwnerKey(seal, custody, this.deps.sharePins.pool);
      for (const wallet of await wallets.listForUser(userUuid)) {
        if (!sameAddress(await effectiveOwner(chain, wallet), custody.owner)) throw ownerMismatch();
      }
      // Everything so far only read; from here on the rotation is under way (the verification token
      // is used now).
      await authorise();
      // 3. Generate a new owner EOA, mnemonic and private key (and the new server share).
      const newMnemonic = newOwnerMnemonic();
      newKey = await mnemonicToOwnerKey(newMnemonic, this.deps.sharePins.pool);
      const newOwner = addressOfPrivateKey(newKey);
      newShareServer = newServerShare();
      const now = Date.now();
      const pending: PendingRotation = {
        userUuid,
        oldOwner: custody.owner,
        newOwner,
        serverShareSealed: seal.sealPendingShare(newShareServer, userUuid, newOwner),
        mnemonicSealed: seal.sealMnemonic(newMnemonic, userUuid, newOwner),
        leaseId,
        leaseUntil: now + this.leaseMs,
        createdAt: now,
      };
      if (!(await store.insertPending(pending))) throw rotationInProgress();
      recorded = true;
      // 4–5. changeOwner(newOwner), signed by the old owner, on every wallet; 6. split the new key
      // with the new PIN hash; 7. store share, mnemonic and owner in one transaction.
      await this.#drive(pending, custody, oldKey, progress, async () => {
        sharePin = await this.deps.sharePins.derive(newPinHash);
        shareUser = splitKey(newKey!, sharePin, newShareServer!);
        return this.deps.shareCheck.of(shareUser, userUuid, custody.keyVersion + 1);
      });
      this.deps.logger.info({ userUuid, oldOwner: custody.owner, newOwner }, 'wallet owner rotated');
      return {
        address: custody.walletAddress,
        mnemonicEnc: encryptMnemonicForPin(newMnemonic, newPinHash),
        keyShareUser: shareUser!.toString('hex'),
      };
    } catch (err) {
      if (recorded) {
        if (progress.sent) {
          // Something may be on chain: keep the rotation for the next use of the wallet to complete.
          await store.releaseLease(userUuid, leaseId).catch(() => undefined);
          this.deps.logger.error(
            { userUuid, err: err instanceof Error ? err.message : String(err) },
            'owner rotation interrupted after a chain operation; the next use of the wallet completes it',
          );
        } else {
          // Nothing was sent: the rotation never started on chain and can be dropped.
          await store.deletePending(userUuid, leaseId).catch(() => undefined);
        }
      }
      throw err;
    } finally {
      // 8. Wipe all key buffers.
      wipe(oldKey, oldShareServer, newKey, newShareServer, sharePin, shareUser);
    }
  }

  /**
   * Moves every wallet of the user from the old to the new owner (deploying undeployed ones first,
   * in the same operation) and then stores the new owner. Wallets already moved are skipped, so it
   * resumes an interrupted rotation. `beforeStore` runs between the chain and the database.
   */
  async #drive(
    pending: PendingRotation,
    custody: Custody,
    oldKey: Buffer,
    progress: { sent: boolean },
    /** Splits the new key; returns the fingerprint of the new share_user it will hand out. */
    beforeStore?: () => Promise<string>,
  ): Promise<void> {
    const { store, wallets, seal } = this.deps;
    const userUuid = pending.userUuid;
    const signer = ownerFromPrivateKey(oldKey);
    let userShareCheck: string | undefined;
    for (let round = 0; round < 3; round++) {
      const list = await wallets.listForUser(userUuid);
      for (const wallet of list) await this.#moveWallet(pending, wallet, signer, progress);
      if (round === 0 && beforeStore) userShareCheck = await beforeStore();
      const stored = await store.transaction(async (trx) => {
        // A wallet created meanwhile (a new slot) must move too before the new owner is stored.
        if ((await wallets.listForUser(userUuid, trx)).length !== list.length) return false;
        const share = seal.openPendingShare(pending.serverShareSealed, userUuid, pending.newOwner);
        let serverShareSealed: string;
        try {
          serverShareSealed = seal.sealServerShare(share, userUuid, pending.newOwner, custody.keyVersion + 1);
        } finally {
          share.fill(0);
        }
        const replaced = await store.replaceOwner(
          {
            userUuid,
            oldOwner: pending.oldOwner,
            expectedVersion: custody.keyVersion,
            newOwner: pending.newOwner,
            serverShareSealed,
            mnemonicSealed: pending.mnemonicSealed,
            userShareCheck,
            now: Date.now(),
          },
          trx,
        );
        if (!replaced) throw custodyChanged();
        await wallets.setOwnerForUser(userUuid, pending.newOwner, trx);
        if (!(await store.deletePending(userUuid, pending.leaseId, trx))) throw rotationInProgress();
        return true;
      });
      if (stored) return;
    }
    throw rotationInProgress();
  }

  async #moveWallet(
    pending: PendingRotation,
    wallet: Wallet,
    signer: ReturnType<typeof ownerFromPrivateKey>,
    progress: { sent: boolean },
  ): Promise<void> {
    const { chain, store, wallets } = this.deps;
    const onChain = await chain.ownerOf(wallet.address);
    if (onChain !== undefined && sameAddress(onChain, pending.newOwner)) {
      if (!wallet.deployed) await wallets.markDeployed(wallet.address);
      return;
    }
    // Undeployed: its owner is the first owner in its creation code, which must be the old owner.
    if (!sameAddress(onChain ?? wallet.initialOwner, pending.oldOwner)) throw ownerMismatch();
    if (!(await store.renewLease(pending.userUuid, pending.leaseId, Date.now() + this.leaseMs))) {
      throw rotationInProgress();
    }
    let result;
    try {
      result = await chain.submit(
        { ...walletRef(wallet), deployed: onChain !== undefined },
        { callData: chain.changeOwnerCallData(pending.newOwner) },
        signer,
      );
    } catch (err) {
      if (!definitelyNotSent(err)) progress.sent = true;
      throw err;
    }
    progress.sent = true;
    if (!result.success) throw rotationFailed(wallet.address, result.revert?.message);
    if (!wallet.deployed) await wallets.markDeployed(wallet.address);
  }
}
