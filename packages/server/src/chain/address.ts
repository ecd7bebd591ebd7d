import { getAddress, isAddress } from 'viem';
import { invalidField } from '../errors.js';
import type { Address } from './types.js';

/**
 * The one address helper. Services use it too (they may not import viem themselves), so it stays small
 * and pure: no client, no I/O.
 */

/** EIP-55 form of an address (viem `getAddress`); throws on text that is not a 20-byte hex address. */
export const checksumAddress = (address: string): Address => getAddress(address);

/** Compares two addresses regardless of checksum casing; false when either is missing. */
export const sameAddress = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/**
 * Checksums a schema-valid address from a request. Mixed case must be a valid EIP-55 checksum (a wrong
 * one is usually a typo): 400 `invalid_request` naming the field. All-lowercase or all-uppercase carries
 * no checksum.
 */
export function toAddress(value: string, field: string): Address {
  const hex = value.slice(2);
  const unchecked = hex === hex.toLowerCase() || hex === hex.toUpperCase();
  if (!unchecked && !isAddress(value, { strict: true })) {
    throw invalidField(field, `${field} has a wrong EIP-55 checksum`);
  }
  return getAddress(value.toLowerCase());
}

/**
 * A 20-byte address given to a service as text (`0x` and 40 hex digits), in its checksum form; anything else
 * is a 400 `invalid_request` naming `field` with `message`. Case is not checked here (see `toAddress` for
 * the routes that refuse a wrong EIP-55 checksum).
 */
export function parseAddress(
  value: string,
  field: string,
  message = `${field} must be a 0x-prefixed 20-byte address`,
): Address {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw invalidField(field, message);
  return getAddress(value.toLowerCase());
}
