import { addressOfPrivateKey } from '../../chain/operations/operationOwner.js';
import { combineShares, shareFromHex, wipe } from '../../crypto/keyShares.js';
import { isValidPrivateKey } from '../../crypto/ownerKey.js';
import type { Custody } from '../../stores/custodyStore.js';
import { walletNotFound } from './custodyErrors.js';
import { type CustodyDeps, type PinProof, sameAddress } from './custodyDeps.js';

/**
 * Recombines the owner key from the three shares and lends it to `use`, all inside this one
 * function's scope: the key exists only in a Buffer that is zeroed in `finally`, after `use`
 * settles (so a signing callback may use it until the operation is submitted).
 *
 * The PIN check is the combined key yielding the stored owner address. Every attempt is reserved
 * against the wallet's lockout before PBKDF2 runs; a wrong one is 401 `invalid_pin` (423
 * `pin_locked` on the fifth), a right one clears the count. The caller completes any pending owner
 * rotation first (`OwnerRotation.reconcile`), so the stored owner is the on-chain one.
 */
export async function withOwnerKey<T>(
  deps: CustodyDeps,
  userUuid: number,
  proof: PinProof,
  use: (key: Buffer, custody: Custody) => Promise<T>,
): Promise<T> {
  const custody = await deps.store.find(userUuid);
  if (!custody) throw walletNotFound();
  await deps.lockout.reserve(userUuid, custody.lockedUntil);

  let shareUser: Buffer | undefined;
  let sharePin: Buffer | undefined;
  let shareServer: Buffer | undefined;
  let key: Buffer | undefined;
  try {
    shareUser = shareFromHex(proof.keyShareUser);
    sharePin = await deps.sharePins.derive(proof.pinHash);
    shareServer = deps.seal.openServerShare(
      custody.serverShareSealed,
      userUuid,
      custody.owner,
      custody.keyVersion,
    );
    key = combineShares(sharePin, shareServer, shareUser);
    wipe(sharePin, shareServer, shareUser);
    const matches = isValidPrivateKey(key) && sameAddress(addressOfPrivateKey(key), custody.owner);
    if (!matches) await deps.lockout.wrong(userUuid);
    await deps.lockout.success(userUuid);
    return await use(key, custody);
  } finally {
    wipe(shareUser, sharePin, shareServer, key);
  }
}
