import { sameAddress } from '../../chain/address.js';
import { addressOfPrivateKey } from '../../chain/operations/operationOwner.js';
import { safeEqual } from '../../crypto/constantTime.js';
import { newServerShare, splitKey, wipe } from '../../crypto/keyShares.js';
import { isValidMnemonic, mnemonicToOwnerKey, normaliseMnemonic } from '../../crypto/ownerKey.js';
import { invalidField } from '../../errors.js';
import { custodyChanged, invalidMnemonic, walletNotFound } from './custodyErrors.js';
import { type CustodyDeps } from './custodyDeps.js';
import { custodyCorrupt } from './storedOwnerKey.js';
import type { Address } from './walletChain.js';

/**
 * PIN reset by mnemonic (spec endpoint 11): the mnemonic is compared in constant time with the
 * server's decrypted copy, the key is derived from it and split again under the new PIN hash, and
 * the server share is replaced by a conditional update (so the old key_share_user stops working).
 * Owner, wallet address and chain are untouched. Knowing the mnemonic also ends a PIN lockout.
 */
export async function resetPin(
  deps: CustodyDeps,
  userUuid: number,
  mnemonicInput: string,
  newPinHash: string,
): Promise<{ address: Address; keyShareUser: string }> {
  const mnemonic = normaliseMnemonic(mnemonicInput);
  if (!isValidMnemonic(mnemonic)) {
    throw invalidField('mnemonic', 'mnemonic is not a valid 12-word BIP-39 (English) mnemonic');
  }
  const custody = await deps.store.find(userUuid);
  if (!custody) throw walletNotFound();

  let stored: Buffer | undefined;
  let candidate: Buffer | undefined;
  let key: Buffer | undefined;
  let sharePin: Buffer | undefined;
  let shareServer: Buffer | undefined;
  let shareUser: Buffer | undefined;
  try {
    stored = deps.seal.openMnemonic(custody.mnemonicSealed, userUuid, custody.owner);
    candidate = Buffer.from(mnemonic, 'utf8');
    if (!safeEqual(stored, candidate)) throw invalidMnemonic();
    key = await mnemonicToOwnerKey(mnemonic, deps.sharePins.pool);
    if (!sameAddress(addressOfPrivateKey(key), custody.owner)) throw custodyCorrupt();
    shareServer = newServerShare();
    sharePin = await deps.sharePins.derive(newPinHash);
    shareUser = splitKey(key, sharePin, shareServer);
    const sealed = deps.seal.sealServerShare(shareServer, userUuid, custody.owner, custody.keyVersion + 1);
    const check = deps.shareCheck.of(shareUser, userUuid, custody.keyVersion + 1);
    if (!(await deps.store.replaceServerShare(userUuid, custody.keyVersion, sealed, check, Date.now()))) {
      throw custodyChanged();
    }
    deps.logger.info({ userUuid }, 'PIN reset by mnemonic');
    return { address: custody.walletAddress, keyShareUser: shareUser.toString('hex') };
  } finally {
    wipe(stored, candidate, key, sharePin, shareServer, shareUser);
  }
}
