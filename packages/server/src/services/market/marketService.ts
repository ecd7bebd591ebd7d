import { randomUUID } from 'node:crypto';
import type { Address, Hash } from '../../chain/types.js';
import { AppError, conflict, notFound, unauthorized } from '../../errors.js';
import type { Revert } from '../../errors.js';
import type { Listing, MarketStore } from '../../stores/marketStore.js';
import type { WalletStore } from '../../stores/walletStore.js';
import { handoverPending } from '../custody/contentWallets.js';
import type { LoginStatusPort, TokenGrants } from '../backendIntegration/ports.js';
import type { SlotService } from '../slots/slotService.js';
import { walletRequired } from '../slots/slotService.js';
import type { SlotTransferService, TransferResult } from '../slots/slotTransferService.js';

/** A marketplace listing as routes render it. */
export type { Listing };

/** The PIN trio as services take it (`pin_salt` is the client's; the server needs hash and share). */
export interface MarketPin {
  pinHash: string;
  keyShareUser: string;
}

export interface CreateListingInput {
  userUuid: number;
  clientId: string;
  /** Wei as a decimal string. */
  price: string;
  /** Which of the user's slots of the app; 0 (their first) by default. */
  metaIdx?: number;
  /** The seller's PIN trio: a listing needs the seller present (decisions §7). */
  pin: MarketPin | undefined;
}

/** What the marketplace needs from custody and the chain (wired by the slot domain). */
export interface MarketWallets {
  /**
   * Proves the PIN trio (401 `invalid_pin`, 423 `pin_locked`) and tries to hand the user's legacy
   * content wallets to the dex; a hand-over that fails is only logged (the caller checks the result).
   */
  confirmPresence(userUuid: number, pin: MarketPin): Promise<void>;
  /** Wei held by a wallet. */
  nativeBalance(address: Address): Promise<bigint>;
  /**
   * One operation of the buyer's main wallet, unlocked by their PIN: `dex.purchase{value: price}`
   * with a fresh sale authorisation, paying the seller's wallet and taking the slot, both or neither.
   * Resolves with `success: false` when it was mined but reverted (nothing moved).
   */
  payAndTake(sale: {
    buyerUuid: number;
    pin: MarketPin;
    slotId: bigint;
    seller: Address;
    buyer: Address;
    price: bigint;
  }): Promise<{ txHash: Hash; userOpHash: Hash; success: boolean; revert?: Revert | undefined }>;
}

export interface Purchase {
  listing: Listing;
  transfer: TransferResult;
}

export const statusNotLoggedOut = () =>
  conflict(
    'status_not_logged_out',
    'The OAuth rights can only be listed or sold while the status is logged_out',
  );
/** Longer than a transfer's own reconciliation window (2 minutes), so the transfer settles first. */
const STALE_CLAIM_MS = 5 * 60_000;
const listingNotAvailable = () => conflict('listing_not_available', 'The listing is no longer on offer');
const pinRequired = () =>
  unauthorized('pin_required', 'This operation needs pin_hash, pin_salt and key_share_user');
const insufficientFunds = (available: bigint, price: bigint) =>
  new AppError(409, 'insufficient_funds', "The buyer's main wallet cannot pay the price; nothing moved", {
    available: available.toString(),
    price: price.toString(),
  });

/**
 * The marketplace (decisions §3, §7): a user lists their OAuth rights and slot for an app while
 * their status for it is `logged_out`, present with their PIN; a buyer's purchase pays the price and
 * moves the slot in one on-chain operation of the buyer's main wallet (`dex.purchase`), run as the
 * chain step of the same ticketed transfer as `exchange_token_owner`, and revokes the seller's
 * tokens for the app. Two buyers at once: the listing is claimed by one conditional UPDATE before
 * the chain step, so exactly one pays; a failed chain step puts the listing back on offer.
 */
export class MarketService {
  constructor(
    private readonly market: MarketStore,
    private readonly slots: SlotService,
    private readonly transfers: SlotTransferService,
    private readonly status: LoginStatusPort,
    private readonly grants: TokenGrants,
    private readonly wallets: WalletStore,
    private readonly payments: MarketWallets,
  ) {
    // A slot that changed owner any other way is no longer the seller's to sell.
    transfers.onTransferred(async ({ slot }) => void (await market.cancelForSlot(slot.id)));
  }

  async createListing(input: CreateListingInput): Promise<Listing> {
    if (!input.pin) throw pinRequired();
    if ((await this.status.getStatus(input.userUuid, input.clientId)) !== 'logged_out')
      throw statusNotLoggedOut();
    const slot = await this.slots.slotAt(input.clientId, input.userUuid, input.metaIdx ?? 0);
    if (!slot) throw notFound('slot_not_found', 'The user has no slot of this app to list');
    if (slot.state !== 'active') throw conflict('slot_busy', 'The slot is being transferred');
    if (!(await this.wallets.mainWallet(input.userUuid))) throw walletRequired();
    await this.payments.confirmPresence(input.userUuid, input.pin);
    // A slot whose content wallet is still on a user's key must not be sold: it would not follow.
    if ((await this.wallets.findByAddress(slot.contentAddress))?.kind === 'slot') throw handoverPending();
    const listing = {
      id: randomUUID(),
      slotId: slot.id,
      clientId: slot.clientId,
      sellerUuid: input.userUuid,
      price: input.price,
      createdAt: Date.now(),
    };
    if (!(await this.market.insert(listing)))
      throw conflict('already_listed', 'This slot is already on offer');
    return (await this.market.find(listing.id))!;
  }

  async list(filter: { clientId?: string; limit?: number } = {}): Promise<Listing[]> {
    return this.market.list({ status: 'active', clientId: filter.clientId, limit: filter.limit ?? 100 });
  }

  async find(id: string): Promise<Listing | undefined> {
    return this.market.find(id);
  }

  async cancel(id: string, sellerUuid: number): Promise<Listing> {
    const found = await this.market.find(id);
    if (!found) throw notFound('listing_not_found', 'No such listing');
    const listing = await this.#settleStaleClaim(found);
    if (listing.sellerUuid !== sellerUuid)
      throw new AppError(403, 'forbidden', 'Only the seller can withdraw a listing');
    if (!(await this.market.cancel(id, sellerUuid))) throw listingNotAvailable();
    return (await this.market.find(id))!;
  }

  async purchase(id: string, buyerUuid: number, pin: MarketPin | undefined): Promise<Purchase> {
    if (!pin) throw pinRequired();
    const found = await this.market.find(id);
    if (!found) throw notFound('listing_not_found', 'No such listing');
    const listing = await this.#settleStaleClaim(found);
    if (listing.status !== 'active') throw listingNotAvailable();
    if (listing.sellerUuid === buyerUuid) throw conflict('own_listing', 'You cannot buy your own listing');
    const buyerWallet = await this.wallets.mainWallet(buyerUuid);
    if (!buyerWallet) throw walletRequired();
    const slot = await this.slots.findSlot(listing.slotId);
    if (!slot || slot.ownerUuid !== listing.sellerUuid) {
      await this.market.cancelForSlot(listing.slotId);
      throw listingNotAvailable();
    }
    // Checked before anything changes; the chain enforces it again inside the sale itself.
    const price = BigInt(listing.price);
    const available = await this.payments.nativeBalance(buyerWallet.address);
    if (available < price) throw insufficientFunds(available, price);
    // Exactly one of several concurrent buyers passes this line.
    if (!(await this.market.claim(id, buyerUuid))) throw listingNotAvailable();
    let transfer: TransferResult;
    try {
      // Checked again now that the listing is held: the seller may have logged in since listing.
      if ((await this.status.getStatus(listing.sellerUuid, listing.clientId)) !== 'logged_out') {
        throw statusNotLoggedOut();
      }
      const binding = {
        cuId: listing.clientId,
        fromUuid: listing.sellerUuid,
        toUuid: buyerUuid,
        metaIdx: slot.metaIdx,
      };
      const ticket = await this.transfers.issueTicket(binding, 'market');
      transfer = await this.transfers.exchange(ticket.state, binding, async (move) => {
        const sale = await this.#payAndTake({ buyerUuid, pin, price, ...move });
        return { txHash: sale.txHash, userOpHash: sale.userOpHash };
      });
    } catch (err) {
      await this.market.release(id, buyerUuid).catch(() => undefined);
      throw err;
    }
    await this.market.markSold(id, buyerUuid, {
      txHash: transfer.txHash ?? '',
      userOpHash: transfer.userOpHash,
      payment: 'onchain',
    });
    await this.grants.revokeUserClient(listing.sellerUuid, listing.clientId, 'slot_sold');
    return { listing: (await this.market.find(id))!, transfer };
  }

  /** The paid chain step; a sale the chain refused (mined, reverted) moved nothing: 409. */
  async #payAndTake(sale: {
    buyerUuid: number;
    pin: MarketPin;
    price: bigint;
    from: Address;
    slotId: bigint;
    to: Address;
  }): Promise<{ txHash: Hash; userOpHash: Hash }> {
    const cannotPay = async () => {
      const available = await this.payments.nativeBalance(sale.to);
      return available < sale.price ? insufficientFunds(available, sale.price) : undefined;
    };
    let result;
    try {
      result = await this.payments.payAndTake({
        buyerUuid: sale.buyerUuid,
        pin: sale.pin,
        slotId: sale.slotId,
        seller: sale.from,
        buyer: sale.to,
        price: sale.price,
      });
    } catch (err) {
      // The estimate saw the sale revert (nothing was sent): most likely the money left meanwhile.
      if (err instanceof AppError && err.status === 422) throw (await cannotPay()) ?? err;
      throw err;
    }
    if (!result.success) {
      throw (
        (await cannotPay()) ??
        new AppError(
          409,
          'sale_refused',
          `The dex refused the sale; nothing moved: ${result.revert?.message ?? 'no reason'}`,
          {
            tx_hash: result.txHash,
          },
        )
      );
    }
    return { txHash: result.txHash, userOpHash: result.userOpHash };
  }

  /**
   * A claim left `pending` by a purchase whose process stopped (after the claim, before `sold` or
   * the release) is settled from the slot's record once it is older than the transfer's own
   * reconciliation window: the slot is the buyer's → sold; still the seller's and not moving →
   * back on offer.
   */
  async #settleStaleClaim(listing: Listing): Promise<Listing> {
    if (listing.status !== 'pending' || listing.buyerUuid === undefined) return listing;
    if (Date.now() - listing.updatedAt < STALE_CLAIM_MS) return listing;
    const slot = await this.slots.findSlot(listing.slotId);
    if (slot?.ownerUuid === listing.buyerUuid) {
      await this.market.markSold(listing.id, listing.buyerUuid, { txHash: '', payment: 'onchain' });
    } else if (slot?.ownerUuid === listing.sellerUuid && slot.state === 'active') {
      await this.market.release(listing.id, listing.buyerUuid);
    }
    return (await this.market.find(listing.id)) ?? listing;
  }
}
