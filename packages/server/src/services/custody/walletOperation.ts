import { sameAddress } from '../../chain/address.js';
import { ownerFromPrivateKey } from '../../chain/operations/operationOwner.js';
import type { Wallet } from '../../stores/walletStore.js';
import { notYourWallet, ownerMismatch } from './custodyErrors.js';
import { type CustodyDeps, type PinProof, effectiveOwner, walletRef } from './custodyDeps.js';
import { unlockOwnerKeyWithPin } from './unlockOwnerKeyWithPin.js';
import type { Call, OperationResult } from './walletChain.js';

/**
 * One sponsored operation from one of the user's wallets (main or slot), signed with the key the
 * PIN trio unlocks. The wallet's on-chain owner is compared with the stored owner first: a wallet
 * some unknown key controls is refused (409 `owner_mismatch`) before any PIN attempt is spent.
 * The caller has reconciled pending rotations.
 */
export async function operateWallet(
  deps: CustodyDeps,
  userUuid: number,
  wallet: Wallet,
  proof: PinProof,
  calls: Call[],
  forApp?: string,
): Promise<OperationResult> {
  if (wallet.userUuid !== userUuid) throw notYourWallet();
  const custody = await deps.store.find(userUuid);
  if (custody && !sameAddress(await effectiveOwner(deps.chain, wallet), custody.owner)) {
    deps.logger.error({ userUuid, wallet: wallet.address }, 'on-chain owner differs from the stored owner');
    throw ownerMismatch();
  }
  return unlockOwnerKeyWithPin(deps, userUuid, proof, async (key) => {
    const result = await deps.chain.submit(walletRef(wallet), { calls }, ownerFromPrivateKey(key), {
      forApp,
    });
    if (!wallet.deployed) await deps.wallets.markDeployed(wallet.address);
    return result;
  });
}
