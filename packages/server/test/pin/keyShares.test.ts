import { createHash, pbkdf2Sync, randomBytes } from 'node:crypto';
import { mnemonicToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { addressOfPrivateKey } from '../../src/chain/operations/operationOwner.js';
import {
  combineShares,
  decryptMnemonicForPin,
  deriveSharePin,
  encryptMnemonicForPin,
  newServerShare,
  splitKey,
} from '../../src/crypto/keyShares.js';
import {
  isValidMnemonic,
  mnemonicToOwnerKey,
  newOwnerMnemonic,
  normaliseMnemonic,
} from '../../src/crypto/ownerKey.js';

const pinHashOf = (pin: string, salt: string) =>
  createHash('sha256')
    .update(pin + salt, 'utf8')
    .digest('hex');

describe('PIN key shares (decisions §4)', () => {
  it('derives share_pin as PBKDF2-HMAC-SHA256(pin_hash text, PIN_SHARE_SALT, 100000, 32)', async () => {
    const pinHash = pinHashOf('123456', 'ab'.repeat(32));
    const derived = await deriveSharePin(pinHash, 'dauth/share_pin/v1');
    expect(derived.toString('hex')).toBe(
      pbkdf2Sync(Buffer.from(pinHash, 'utf8'), 'dauth/share_pin/v1', 100_000, 32, 'sha256').toString('hex'),
    );
    expect((await deriveSharePin(pinHash, 'another salt')).equals(derived)).toBe(false);
  });

  it('splits a mnemonic key so the three shares recombine to it and its address, and any wrong share does not', async () => {
    const mnemonic = newOwnerMnemonic();
    expect(mnemonic.split(' ')).toHaveLength(12);
    expect(isValidMnemonic(mnemonic)).toBe(true);
    const key = await mnemonicToOwnerKey(mnemonic);
    // The BIP-44 path m/44'/60'/0'/0/0 without passphrase, as every wallet derives it.
    expect(addressOfPrivateKey(key)).toBe(mnemonicToAccount(mnemonic).address);

    const sharePin = await deriveSharePin(pinHashOf('654321', 'cd'.repeat(32)), 'dauth/share_pin/v1');
    const shareServer = newServerShare();
    const shareUser = splitKey(key, sharePin, shareServer);
    expect(shareUser.equals(key)).toBe(false);
    expect(combineShares(sharePin, shareServer, shareUser).equals(key)).toBe(true);

    const wrongPin = await deriveSharePin(pinHashOf('654320', 'cd'.repeat(32)), 'dauth/share_pin/v1');
    expect(addressOfPrivateKey(combineShares(wrongPin, shareServer, shareUser))).not.toBe(
      addressOfPrivateKey(key),
    );
    expect(combineShares(sharePin, randomBytes(32), shareUser).equals(key)).toBe(false);
  });

  it('encrypts the mnemonic as hex(iv ‖ AES-256-CTR(SHA-256("dauth/mnemonic/v1:" + pin_hash)))', async () => {
    const mnemonic = newOwnerMnemonic();
    const pinHash = pinHashOf('000123', 'ef'.repeat(32));
    const enc = encryptMnemonicForPin(mnemonic, pinHash);
    expect(enc).toMatch(/^[0-9a-f]+$/);
    expect(enc.length).toBe(2 * (16 + Buffer.byteLength(mnemonic)));
    // Decrypt exactly as a client would, with nothing but node:crypto.
    const raw = Buffer.from(enc, 'hex');
    const { createDecipheriv } = await import('node:crypto');
    const key = createHash('sha256').update(`dauth/mnemonic/v1:${pinHash}`, 'utf8').digest();
    const decipher = createDecipheriv('aes-256-ctr', key, raw.subarray(0, 16));
    expect(Buffer.concat([decipher.update(raw.subarray(16)), decipher.final()]).toString('utf8')).toBe(
      mnemonic,
    );
    expect(decryptMnemonicForPin(enc, pinHash)).toBe(mnemonic);
    expect(decryptMnemonicForPin(enc, pinHashOf('000124', 'ef'.repeat(32)))).not.toBe(mnemonic);
    // A fresh IV each time.
    expect(encryptMnemonicForPin(mnemonic, pinHash)).not.toBe(enc);
  });

  it('validates 12-word English mnemonics with their checksum', () => {
    const mnemonic = newOwnerMnemonic();
    expect(isValidMnemonic(normaliseMnemonic(`  ${mnemonic.toUpperCase().replace(/ /g, '   ')} `))).toBe(
      true,
    );
    // The BIP-39 test vector and its one-word-off neighbour (same words, wrong checksum).
    expect(isValidMnemonic(`${'abandon '.repeat(11)}about`)).toBe(true);
    expect(isValidMnemonic(`${'abandon '.repeat(11)}abandon`)).toBe(false);
    const words = mnemonic.split(' ');
    expect(isValidMnemonic(words.slice(0, 11).join(' '))).toBe(false);
    expect(isValidMnemonic([...words.slice(0, 11), 'notaword'].join(' '))).toBe(false);
  });
});
