import { encodeAbiParameters, keccak256, toHex, type Address, type Hash } from 'viem';

/** Domain tag of `DauthDex.purchase` authorisations (the contract's `SALE_TAG`). */
const SALE_TAG = keccak256(toHex('DauthDex.purchase'));

export type SlotSaleTerms = {
  dex: Address;
  chainId: number;
  slot: bigint;
  /** The seller's wallet: the slot's owner at the dex now. */
  seller: Address;
  /** The buyer's wallet: the caller of `purchase`. */
  buyer: Address;
  /** Wei the buyer's wallet sends with the call. */
  price: bigint;
  /** The slot's `transferCount` now: the authorisation is spent by the move it allows. */
  transferCount: bigint;
  /** Unix seconds; the dex refuses the sale after it. */
  deadline: bigint;
};

/**
 * The hash the dex's sale signer signs as an EIP-191 message (`signMessage({message: {raw}})`) to authorise
 * one `purchase`; equal to `DauthDex.saleHash` (tested).
 */
export function getSlotSaleHash(terms: SlotSaleTerms): Hash {
  return keccak256(
    encodeAbiParameters(
      [
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'address' },
        { type: 'uint256' },
        { type: 'address' },
        { type: 'address' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
      ],
      [
        SALE_TAG,
        BigInt(terms.chainId),
        terms.dex,
        terms.slot,
        terms.seller,
        terms.buyer,
        terms.price,
        terms.transferCount,
        terms.deadline,
      ],
    ),
  );
}
