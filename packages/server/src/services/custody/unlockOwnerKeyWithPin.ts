import { sameAddress } from '../../chain/address.js';
import { addressOfPrivateKey } from '../../chain/operations/operationOwner.js';
import { safeEqual } from '../../crypto/constantTime.js';
import { combineShares, shareFromHex, wipe } from '../../crypto/keyShares.js';
import { isValidPrivateKey } from '../../crypto/ownerKey.js';
import type { Custody } from '../../stores/custodyStore.js';
import { invalidPin, walletNotFound } from './custodyErrors.js';
import { MAX_WRONG_PINS } from './pinLockout.js';
import { type CustodyDeps, type PinProof } from './custodyDeps.js';

/**
 * Recombines the owner key from the three shares and lends it to `use`, all inside this one
 * function's scope: the key exists only in a Buffer that is zeroed in `finally`, after `use`
 * settles (so a signing callback may use it until the operation is submitted).
 *
 * The PIN check is the combined key yielding the stored owner address: its keyed fingerprint
 * (`owner_key_check`, one HMAC) when the row has it, else the key's address, after which the
 * fingerprint is stored. Every attempt is reserved against the wallet's lockout before PBKDF2 runs; a
 * wrong one is 401 `invalid_pin` (423 `pin_locked` on the fifth), a right one clears the count. The
 * caller completes any pending owner rotation first (`OwnerRotation.reconcile`), so the stored owner is
 * the on-chain one; it may pass the custody row that check read (`known`) to save reading it again.
 */
export async function unlockOwnerKeyWithPin<T>(
  deps: CustodyDeps,
  userUuid: number,
  proof: PinProof,
  use: (key: Buffer, custody: Custody) => Promise<T>,
  known?: Custody,
): Promise<T> {
  const custody = known ?? (await deps.store.find(userUuid));
  if (!custody) throw walletNotFound();
  if (custody.lockedUntil <= Date.now() && custody.userShareCheck !== undefined) {
    // Not the user's current share: this attempt cannot succeed whatever the PIN, so it is refused before
    // it can count against the lockout. Only a caller holding the user's device share can lock the wallet.
    const presented = shareFromHex(proof.keyShareUser);
    try {
      if (!deps.shareCheck.matches(custody.userShareCheck, presented, userUuid, custody.keyVersion)) {
        throw invalidPin(Math.max(0, MAX_WRONG_PINS - custody.failedAttempts));
      }
    } finally {
      wipe(presented);
    }
  }
  await deps.lockout.reserve(userUuid, custody.lockedUntil);

  let shareUser: Buffer | undefined;
  let sharePin: Buffer | undefined;
  let shareServer: Buffer | undefined;
  let key: Buffer | undefined;
  try {
    shareUser = shareFromHex(proof.keyShareUser);
    // A row from before the fingerprint existed gets it once this share proves right.
    const backfill =
      custody.userShareCheck === undefined
        ? deps.shareCheck.of(shareUser, userUuid, custody.keyVersion)
        : undefined;
    sharePin = await deps.sharePins.derive(proof.pinHash);
    shareServer = deps.seal.openServerShare(
      custody.serverShareSealed,
      userUuid,
      custody.owner,
      custody.keyVersion,
    );
    key = combineShares(sharePin, shareServer, shareUser);
    wipe(sharePin, shareServer, shareUser);
    const keyCheck = deps.ownerKeyCheck.of(key, userUuid, custody.owner);
    const fingerprintMatches =
      custody.ownerKeyCheck !== undefined && safeEqual(custody.ownerKeyCheck, keyCheck);
    // Without a (matching) fingerprint the address decides, as it always did.
    const matches =
      fingerprintMatches || (isValidPrivateKey(key) && sameAddress(addressOfPrivateKey(key), custody.owner));
    if (!matches) await deps.lockout.wrong(userUuid);
    await deps.lockout.success(userUuid);
    if (backfill !== undefined) await deps.store.setShareCheck(userUuid, custody.keyVersion, backfill);
    if (!fingerprintMatches) await deps.store.setOwnerKeyCheck(userUuid, custody.owner, keyCheck);
    return await use(key, custody);
  } finally {
    wipe(shareUser, sharePin, shareServer, key);
  }
}
