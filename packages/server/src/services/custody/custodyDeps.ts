import type { CustodyStore } from '../../stores/custodyStore.js';
import type { Wallet, WalletStore } from '../../stores/walletStore.js';
import type { CustodySeal } from './custodySeal.js';
import type { OwnerKeyCheck } from './ownerKeyCheck.js';
import type { PinLockout } from './pinLockout.js';
import type { ShareCheck } from './shareCheck.js';
import type { SharePinDeriver } from './sharePinDeriver.js';
import type { Address, WalletChain, WalletRef } from './walletChain.js';

/** The PIN trio a client sends with every PIN-gated request (decisions §4). */
export interface PinProof {
  /** 64 lowercase hex: SHA-256 of PIN ‖ pin_salt. */
  pinHash: string;
  /** 64 hex: the client's key share. */
  keyShareUser: string;
}

/** Where custody logs go; never given a key, share, PIN hash or mnemonic. */
export interface CustodyLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Everything the custody use cases share, wired once by the composition root. */
export interface CustodyDeps {
  store: CustodyStore;
  wallets: WalletStore;
  seal: CustodySeal;
  sharePins: SharePinDeriver;
  lockout: PinLockout;
  shareCheck: ShareCheck;
  ownerKeyCheck: OwnerKeyCheck;
  chain: WalletChain;
  logger: CustodyLogger;
  /**
   * Pre-generated players' wallets (docs/players.md): the sealed mnemonic (`CustodySeal.sealMnemonic`) of
   * a main wallet a studio made before the player's first sign-in, which the PIN registration adopts.
   */
  pregenerated?: PregeneratedWallets | undefined;
}

export interface PregeneratedWallets {
  sealedMnemonic(userUuid: number): Promise<string | undefined>;
  dropMnemonic(userUuid: number): Promise<void>;
}

export const walletRef = (w: Wallet): WalletRef => ({
  address: w.address,
  initialOwner: w.initialOwner,
  salt: w.salt,
  deployed: w.deployed,
});

/** The owner that controls `wallet` on chain: `owner()` once deployed, its first owner before. */
export async function effectiveOwner(chain: WalletChain, wallet: Wallet): Promise<Address> {
  return (await chain.ownerOf(wallet.address)) ?? wallet.initialOwner;
}
