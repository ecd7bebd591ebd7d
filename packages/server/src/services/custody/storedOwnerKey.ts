import { sameAddress } from '../../chain/address.js';
import { addressOfPrivateKey } from '../../chain/operations/operationOwner.js';
import { mnemonicToOwnerKey, type SeedPbkdf2 } from '../../crypto/ownerKey.js';
import { AppError } from '../../errors.js';
import type { Custody } from '../../stores/custodyStore.js';
import type { CustodySeal } from './custodySeal.js';

export const custodyCorrupt = () =>
  new AppError(500, 'custody_corrupt', "The stored key material does not match the wallet's owner");

/**
 * The current owner key from the server's own sealed mnemonic (recover's rules 1–2): decrypt the
 * stored mnemonic, derive the key, and check it yields the stored owner. A Buffer the caller wipes.
 */
export async function storedOwnerKey(
  seal: CustodySeal,
  custody: Custody,
  pbkdf2Runner?: SeedPbkdf2,
): Promise<Buffer> {
  const mnemonic = seal.openMnemonic(custody.mnemonicSealed, custody.userUuid, custody.owner);
  let key: Buffer | undefined;
  try {
    key = await mnemonicToOwnerKey(mnemonic.toString('utf8'), pbkdf2Runner);
    if (!sameAddress(addressOfPrivateKey(key), custody.owner)) throw custodyCorrupt();
    const result = key;
    key = undefined;
    return result;
  } finally {
    mnemonic.fill(0);
    key?.fill(0);
  }
}
