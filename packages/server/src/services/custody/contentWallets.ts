import { ownerFromPrivateKey } from '../../chain/operations/operationOwner.js';
import { conflict } from '../../errors.js';
import type { Wallet } from '../../stores/walletStore.js';
import { notYourWallet, walletNotFound } from './custodyErrors.js';
import { sameAddress } from '../../chain/address.js';
import { type CustodyDeps, type PinProof, effectiveOwner, walletRef } from './custodyDeps.js';
import { unlockOwnerKeyWithPin } from './unlockOwnerKeyWithPin.js';
import type { Call, OperationResult } from './walletChain.js';
import { operateWallet } from './walletOperation.js';

/** The slot a content wallet belongs to, as the slots domain records it now. */
export interface ContentWalletSlot {
  slotId: string;
  ownerUuid: number;
}

/** What custody needs to know about slots (implemented over the slot store by the composition root). */
export interface ContentWalletSlots {
  slotOfContentWallet(address: string): Promise<ContentWalletSlot | undefined>;
}

export const handoverPending = () =>
  conflict(
    'content_wallet_handover_pending',
    "This slot's content wallet is still held by its first owner's key; it follows the slot once that key hands it to the dex (at the first owner's next PIN use)",
  );

/** True for a slot's content wallet, of either generation. */
export const isContentWallet = (wallet: Wallet): boolean =>
  wallet.kind === 'content' || wallet.kind === 'slot';

/**
 * Content wallets follow their slot (decisions §7). A `content` wallet is owned by the dex, so the
 * slot's current owner operates it with one operation of their own main wallet that calls
 * `dex.executeFromSlot(slot, …)` per call (and deploys the content wallet first when it is not yet).
 * Custody refuses anyone else (403 `not_your_wallet`), before any PIN attempt is spent: the former
 * owner of a sold slot included.
 *
 * A legacy `slot` wallet (made before, owned by its first owner's EOA) is handed to the dex with one
 * `changeOwner(dex)` operation signed by that key — which only its holder's PIN unlocks. That happens
 * at the holder's next PIN use (`handOverLegacy`, called by every PIN-gated operation and by a
 * listing); until then only the current slot owner's requests are served, and a slot owner who is
 * not the key holder gets 409 `content_wallet_handover_pending`.
 */
export class ContentWalletCustody {
  constructor(
    private readonly deps: CustodyDeps,
    private readonly slots: ContentWalletSlots,
  ) {}

  /** The slot of `wallet` if `userUuid` owns it now; 403 `not_your_wallet` otherwise. */
  async requireSlotOwner(userUuid: number, wallet: Wallet): Promise<ContentWalletSlot> {
    const slot = await this.slots.slotOfContentWallet(wallet.address);
    if (!slot || slot.ownerUuid !== userUuid) throw notYourWallet();
    if (wallet.kind === 'slot' && wallet.userUuid !== userUuid) throw handoverPending();
    return slot;
  }

  /** One operation of the slot owner's main wallet that makes the content wallet run `calls`. */
  async operate(userUuid: number, wallet: Wallet, proof: PinProof, calls: Call[]): Promise<OperationResult> {
    const slot = await this.requireSlotOwner(userUuid, wallet);
    if (wallet.kind === 'slot') {
      await this.handOverLegacy(userUuid, proof);
      const fresh = await this.deps.wallets.findByAddress(wallet.address);
      if (fresh?.kind !== 'content') throw handoverPending();
      wallet = fresh;
    }
    const main = await this.deps.wallets.mainWallet(userUuid);
    if (!main) throw walletNotFound();
    const deployed = wallet.deployed || (await this.deps.chain.hasCode(wallet.address));
    const wrapped = this.deps.chain.contentWalletCalls(BigInt(slot.slotId), wallet.address, !deployed, calls);
    const result = await operateWallet(this.deps, userUuid, main, proof, wrapped);
    if (result.success && !wallet.deployed) await this.deps.wallets.markDeployed(wallet.address);
    return result;
  }

  /**
   * Hands every legacy content wallet the user's key still holds to the dex: one `changeOwner(dex)`
   * operation each (deploying a counterfactual one in the same operation). With nothing to hand over
   * it unlocks nothing (no extra PIN derivation per operation) unless `prove` asks it to check the PIN
   * anyway. A wallet some other key controls is skipped (logged), never signed for.
   */
  async handOverLegacy(
    userUuid: number,
    proof: PinProof,
    options: { prove?: boolean } = {},
  ): Promise<number> {
    const legacy = await this.deps.wallets.legacyContentWallets(userUuid);
    if (legacy.length === 0) {
      if (options.prove) await unlockOwnerKeyWithPin(this.deps, userUuid, proof, async () => undefined);
      return 0;
    }
    const dex = this.deps.chain.dex;
    return unlockOwnerKeyWithPin(this.deps, userUuid, proof, async (key, custody) => {
      let handed = 0;
      for (const wallet of legacy) {
        const owner = await effectiveOwner(this.deps.chain, wallet);
        if (sameAddress(owner, dex)) {
          await this.deps.wallets.markHandedToDex(wallet.address, dex);
          continue;
        }
        if (!sameAddress(owner, custody.owner)) {
          this.deps.logger.error({ wallet: wallet.address }, 'legacy content wallet has an unknown owner');
          continue;
        }
        const result = await this.deps.chain.submit(
          walletRef(wallet),
          { callData: this.deps.chain.changeOwnerCallData(dex) },
          ownerFromPrivateKey(key),
        );
        if (!result.success) {
          this.deps.logger.error(
            { wallet: wallet.address, revert: result.revert?.name },
            'handing a content wallet to the dex reverted',
          );
          continue;
        }
        await this.deps.wallets.markHandedToDex(wallet.address, dex);
        handed++;
      }
      if (handed > 0) this.deps.logger.info({ userUuid, handed }, 'legacy content wallets handed to the dex');
      return handed;
    });
  }
}
