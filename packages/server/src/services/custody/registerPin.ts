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
  const existing = await deps.wallets.mainWallet(userUuid);
  let mnemonic: string;
  let adopted: Address | undefined;
  if (existing) {
    // A pre-generated player (docs/players.md): the wallet a studio made before the first sign-in, its
    // mnemonic sealed until now, becomes the PIN's wallet: the same address, nothing on chain.
    const sealed = await deps.pregenerated?.sealedMnemonic(userUuid);
    if (sealed === undefined || (await deps.store.find(userUuid))) throw walletExists();
    const opened = deps.seal.openMnemonic(sealed, userUuid, existing.initialOwner);
    try {
      mnemonic = opened.toString('utf8');
    } finally {
      opened.fill(0);
    }
    adopted = existing.address;
  } else {
    mnemonic = newOwnerMnemonic();
  }
  let key: Buffer | undefined;
  let sharePin: Buffer | undefined;
  let shareServer: Buffer | undefined;
  let shareUser: Buffer | undefined;
  try {
    key = await mnemonicToOwnerKey(mnemonic, deps.sharePins.pool);
    const owner = addressOfPrivateKey(key);
    const address = await deps.chain.walletAddress(owner, MAIN_WALLET_SALT);
    if (adopted !== undefined && address !== adopted) throw walletExists();
    shareServer = newServerShare();
    sharePin = await deps.sharePins.derive(pinHash);
    shareUser = splitKey(key, sharePin, shareServer);
    const now = Date.now();
    const keyVersion = 1;
    const serverShareSealed = deps.seal.sealServerShare(shareServer, userUuid, owner, keyVersion);
    const mnemonicSealed = deps.seal.sealMnemonic(mnemonic, userUuid, owner);
    const userShareCheck = deps.shareCheck.of(shareUser, userUuid, keyVersion);
    const ownerKeyCheck = deps.ownerKeyCheck.of(key, userUuid, owner);
    const custodyRow = () => ({
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
    });
    await deps.store.transaction(async (trx) => {
      if (adopted !== undefined) {
        if (!(await deps.store.insert(custodyRow(), trx))) throw walletExists();
        return;
      }
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
      const inserted = await deps.store.insert(custodyRow(), trx);
      // A concurrent registration won: roll back our wallet row too.
      if (!inserted) throw walletExists();
    });
    if (adopted !== undefined) await deps.pregenerated?.dropMnemonic(userUuid);
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
