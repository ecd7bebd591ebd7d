import { sameAddress } from '../../chain/address.js';
import { invalidField, OperationReverted } from '../../errors.js';
import type { Custody } from '../../stores/custodyStore.js';
import type { Wallet } from '../../stores/walletStore.js';
import type { EmailVerificationService } from '../verification/emailVerificationService.js';
import { type ContentWalletCustody, isContentWallet } from './contentWallets.js';
import { ownerFromPrivateKey } from '../../chain/operations/operationOwner.js';
import { notYourWallet, ownerMismatch, walletNotFound } from './custodyErrors.js';
import { type CustodyDeps, effectiveOwner, type PinProof } from './custodyDeps.js';
import type { OwnerRotation, RecoveredWallet } from './ownerRotation.js';
import { unlockOwnerKeyWithPin } from './unlockOwnerKeyWithPin.js';
import { registerPin, type RegisteredWallet } from './registerPin.js';
import { resetPin } from './resetPin.js';
import type { Address, Call, OperationOwner, OperationResult } from './walletChain.js';
import { operateWallet } from './walletOperation.js';

export type { PinProof, RegisteredWallet, RecoveredWallet };

/** Most calls one PIN-verified operation may carry. */
export const MAX_CALLS_PER_OPERATION = 16;

/**
 * PIN key custody: the use cases behind `/v1/pin/*`, and the one way other features make a user's
 * wallet act (`operate`). Every use of a wallet first completes an interrupted owner rotation.
 * The composition root builds its parts (`composition/custody.ts`).
 */
export class CustodyService {
  constructor(
    private readonly deps: CustodyDeps,
    private readonly verification: EmailVerificationService,
    readonly rotation: OwnerRotation,
    /** Slot content wallets: operated by the slot's current owner through the dex. */
    readonly contentWallets: ContentWalletCustody,
  ) {}

  /** POST /v1/pin/register. 409 `wallet_exists` when the user has a wallet. */
  register(userUuid: number, pinHash: string): Promise<RegisteredWallet> {
    return registerPin(this.deps, userUuid, pinHash);
  }

  /**
   * POST /v1/pin/verify. Without calls: proves the PIN and answers the main wallet's address. With
   * calls: one sponsored operation (`execute` for one call, `executeBatch` for several) from the
   * main wallet. A call to the wallet itself is refused (it could `changeOwner` behind custody's back).
   */
  async verify(
    userUuid: number,
    proof: PinProof,
    calls?: Call[],
    /** The app the operation is made for (the login JWT's binding): its sponsorship policy applies. */
    forApp?: string,
  ): Promise<{ address: Address } | { address: Address; userOpHash: string; txHash: string }> {
    // The custody row read with the pending-rotation check serves the PIN check too (one statement),
    // and names the main wallet (custody rows belong to it), so a bare PIN proof reads nothing else.
    const custody = await this.rotation.reconcile(userUuid);
    if (custody && (!calls || calls.length === 0)) {
      await unlockOwnerKeyWithPin(this.deps, userUuid, proof, async () => undefined, custody);
      return { address: custody.walletAddress };
    }
    const main = await this.deps.wallets.mainWallet(userUuid);
    if (!main) throw walletNotFound();
    if (!calls || calls.length === 0) {
      await unlockOwnerKeyWithPin(this.deps, userUuid, proof, async () => undefined);
      return { address: main.address };
    }
    if (calls.length > MAX_CALLS_PER_OPERATION) {
      throw invalidField('calls', `calls may hold at most ${MAX_CALLS_PER_OPERATION} calls`);
    }
    const selfCall = calls.findIndex((c) => sameAddress(c.to, main.address));
    if (selfCall >= 0) {
      throw invalidField(`calls.${selfCall}.to`, 'A wallet cannot call itself through /v1/pin/verify');
    }
    await this.contentWallets.handOverLegacy(userUuid, proof);
    const result = await operateWallet(this.deps, userUuid, main, proof, calls, forApp);
    if (!result.success) throw OperationReverted.included(result);
    return { address: main.address, userOpHash: result.userOpHash, txHash: result.txHash };
  }

  /** POST /v1/pin/reset. */
  async reset(
    userUuid: number,
    mnemonic: string,
    newPinHash: string,
  ): Promise<{ address: Address; keyShareUser: string }> {
    await this.rotation.reconcile(userUuid);
    return resetPin(this.deps, userUuid, mnemonic, newPinHash);
  }

  /** POST /v1/pin/recover: needs a `pin_recover` verification token (single use). */
  async recover(userUuid: number, newPinHash: string, verificationToken: string): Promise<RecoveredWallet> {
    if (!(await this.deps.store.find(userUuid))) throw walletNotFound();
    await this.verification.checkToken(userUuid, 'pin_recover', verificationToken);
    // Finish an interrupted rotation first, so a failure there does not use up the token.
    await this.rotation.reconcile(userUuid);
    // The token is used at the point of no return: after the read-only checks (rules 1–2), before
    // the rotation is recorded. A chain or database outage before that leaves it usable.
    return this.rotation.recover(userUuid, newPinHash, () =>
      this.verification.consumeToken(userUuid, 'pin_recover', verificationToken),
    );
  }

  /**
   * Public API for other features (token transfer, content-token purchase): one sponsored
   * operation with `calls` from `walletAddress`, which must be one of the user's wallets or the
   * content wallet of a slot they own now (403 `not_your_wallet` otherwise), unlocked by the PIN trio
   * (401 `invalid_pin`, 423 `pin_locked`). Legacy content wallets the user's key still holds are
   * handed to the dex first. Resolves even when the operation reverted on chain (`success: false`).
   */
  async operate(
    userUuid: number,
    walletAddress: Address,
    proof: PinProof,
    calls: Call[],
  ): Promise<OperationResult> {
    const wallet = await this.requireWallet(userUuid, walletAddress);
    await this.rotation.reconcile(userUuid);
    const fresh = (await this.deps.wallets.findByAddress(walletAddress)) ?? wallet;
    if (isContentWallet(fresh)) return this.contentWallets.operate(userUuid, fresh, proof, calls);
    await this.contentWallets.handOverLegacy(userUuid, proof);
    return operateWallet(this.deps, userUuid, fresh, proof, calls);
  }

  /**
   * Proves the PIN trio (a seller listing a slot) and hands the user's legacy content wallets to the
   * dex while they are present.
   */
  async confirmPresence(userUuid: number, proof: PinProof): Promise<void> {
    await this.rotation.reconcile(userUuid);
    await this.contentWallets.handOverLegacy(userUuid, proof, { prove: true });
  }

  /**
   * The wallet at `address` if the user may operate it: one of their own, or the content wallet of a
   * slot they own now; 403 `not_your_wallet` otherwise (unknown too).
   */
  async requireWallet(userUuid: number, address: Address): Promise<Wallet> {
    const wallet = await this.deps.wallets.findByAddress(address);
    if (!wallet) throw notYourWallet();
    if (isContentWallet(wallet)) {
      await this.contentWallets.requireSlotOwner(userUuid, wallet);
      return wallet;
    }
    if (wallet.userUuid !== userUuid) throw notYourWallet();
    return wallet;
  }

  /**
   * Lends the main wallet's owner key, unlocked by the PIN trio, to `use` as an operation signer (session-key
   * grants, docs/session-keys.md); the key is wiped when `use` settles. The on-chain owner is checked first,
   * as for `operate`.
   */
  async withMainWalletOwner<T>(
    userUuid: number,
    proof: PinProof,
    use: (owner: OperationOwner, wallet: Wallet) => Promise<T>,
  ): Promise<T> {
    await this.rotation.reconcile(userUuid);
    const main = await this.deps.wallets.mainWallet(userUuid);
    if (!main) throw walletNotFound();
    const custody = await this.deps.store.find(userUuid);
    if (custody && !sameAddress(await effectiveOwner(this.deps.chain, main), custody.owner)) {
      this.deps.logger.error(
        { userUuid, wallet: main.address },
        'on-chain owner differs from the stored owner',
      );
      throw ownerMismatch();
    }
    return unlockOwnerKeyWithPin(this.deps, userUuid, proof, (key) => use(ownerFromPrivateKey(key), main));
  }

  /** The user's custody record (owner, lockout state), for other features and tests. */
  custodyOf(userUuid: number): Promise<Custody | undefined> {
    return this.deps.store.find(userUuid);
  }
}
