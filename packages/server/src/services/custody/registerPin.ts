import { addressOfPrivateKey } from '../../chain/operations/operationOwner.js';
import { encryptMnemonicForPin, newServerShare, splitKey, wipe } from '../../crypto/keyShares.js';
import { mnemonicToOwnerKey, newOwnerMnemonic } from '../../crypto/ownerKey.js';
import { walletExists } from './custodyErrors.js';
import type { CustodyDeps } from './custodyDeps.js';
import type { Address } from './walletChain.js';

/** W_SALT: the main wallet's CREATE2 salt. */
export const MAIN_WALLET_SALT = 0n;

export interface RegisteredWallet {
  /** The main wallet (counterfactual until its first operation). */
  address: Address;
  /** hex(iv ‖ AES-256-CTR(SHA-256("dauth/mnemonic/v1:" + pin_hash), mnemonic)): readable by the PIN holder. */
  mnemonicEnc: string;
  /** 64 lowercase hex. */
  keyShareUser: string;
}

/**
 * PIN registration (spec endpoint 9) as one atomic step: a fresh mnemonic and owner EOA, the
 * counterfactual main wallet, the XOR split, and one transaction that stores the wallet row, the
 * sealed server share and the sealed mnemonic. A crash anywhere leaves either nothing or all of it.
 */
export async function registerPin(
  deps: CustodyDeps,
  userUuid: number,
  pinHash: string,
): Promise<RegisteredWallet> {
  if (await deps.wallets.mainWallet(userUuid)) throw walletExists();
  const mnemonic = newOwnerMnemonic();
  let key: Buffer | undefined;
  let sharePin: Buffer | undefined;
  let shareServer: Buffer | undefined;
  let shareUser: Buffer | undefined;
  try {
    key = await mnemonicToOwnerKey(mnemonic, deps.sharePins.pool);
    const owner = addressOfPrivateKey(key);
    const address = await deps.chain.walletAddress(owner, MAIN_WALLET_SALT);
    shareServer = newServerShare();
    sharePin = await deps.sharePins.derive(pinHash);
    shareUser = splitKey(key, sharePin, shareServer);
    const now = Date.now();
    const keyVersion = 1;
    const serverShareSealed = deps.seal.sealServerShare(shareServer, userUuid, owner, keyVersion);
    const mnemonicSealed = deps.seal.sealMnemonic(mnemonic, userUuid, owner);
    const userShareCheck = deps.shareCheck.of(shareUser, userUuid, keyVersion);
    const ownerKeyCheck = deps.ownerKeyCheck.of(key, userUuid, owner);
    await deps.store.transaction(async (trx) => {
      if (await deps.wallets.mainWallet(userUuid, trx)) throw walletExists();
      await deps.wallets.insert(
        {
          address,
          userUuid,
          kind: 'main',
          salt: MAIN_WALLET_SALT,
          initialOwner: owner,
          owner,
          deployed: false,
          createdAt: now,
        },
        trx,
      );
      const inserted = await deps.store.insert(
        {
          userUuid,
          walletAddress: address,
          owner,
          serverShareSealed,
          mnemonicSealed,
          keyVersion,
          failedAttempts: 0,
          lockCount: 0,
          lockedUntil: 0,
          userShareCheck,
          ownerKeyCheck,
          createdAt: now,
          updatedAt: now,
        },
        trx,
      );
      // A concurrent registration won: roll back our wallet row too.
      if (!inserted) throw walletExists();
    });
    deps.logger.info({ userUuid, wallet: address }, 'PIN registered and main wallet created');
    return {
      address,
      mnemonicEnc: encryptMnemonicForPin(mnemonic, pinHash),
      keyShareUser: shareUser.toString('hex'),
    };
  } finally {
    wipe(key, sharePin, shareServer, shareUser);
  }
}
