import type { SecretBox } from '../../crypto/secretBox.js';
import type { Address } from './walletChain.js';

/**
 * Sealing of custody secrets under MASTER_KEY. Each AAD names the user, the owner EOA, the purpose
 * and (for the server share) the key version, so a sealed value cannot be replayed into another
 * user's row, another owner, or an older version of the same row.
 */
export class CustodySeal {
  constructor(private readonly box: SecretBox) {}

  sealServerShare(share: Buffer, userUuid: number, owner: Address, keyVersion: number): string {
    return this.box.seal(share, serverShareAad(userUuid, owner, keyVersion));
  }

  /** A fresh Buffer the caller wipes. */
  openServerShare(sealed: string, userUuid: number, owner: Address, keyVersion: number): Buffer {
    return this.box.open(sealed, serverShareAad(userUuid, owner, keyVersion));
  }

  sealMnemonic(mnemonic: string, userUuid: number, owner: Address): string {
    const plaintext = Buffer.from(mnemonic, 'utf8');
    try {
      return this.box.seal(plaintext, mnemonicAad(userUuid, owner));
    } finally {
      plaintext.fill(0);
    }
  }

  /** A fresh Buffer (UTF-8 mnemonic) the caller wipes. */
  openMnemonic(sealed: string, userUuid: number, owner: Address): Buffer {
    return this.box.open(sealed, mnemonicAad(userUuid, owner));
  }

  /** The share a pending rotation will install, sealed until the rotation completes. */
  sealPendingShare(share: Buffer, userUuid: number, newOwner: Address): string {
    return this.box.seal(share, pendingShareAad(userUuid, newOwner));
  }

  openPendingShare(sealed: string, userUuid: number, newOwner: Address): Buffer {
    return this.box.open(sealed, pendingShareAad(userUuid, newOwner));
  }
}

const lower = (a: string) => a.toLowerCase();
const serverShareAad = (u: number, owner: Address, v: number) =>
  `dauth/custody/server_share/v1:${u}:${lower(owner)}:${v}`;
const mnemonicAad = (u: number, owner: Address) => `dauth/custody/mnemonic/v1:${u}:${lower(owner)}`;
const pendingShareAad = (u: number, owner: Address) => `dauth/custody/pending_share/v1:${u}:${lower(owner)}`;
