import { randomUUID } from 'node:crypto';
import { AppError, conflict, notFound } from '../../errors.js';
import type { Listing, MarketStore } from '../../stores/marketStore.js';
import type { WalletStore } from '../../stores/walletStore.js';
import type { LoginStatusPort, TokenGrants } from '../backendIntegration/ports.js';
import type { SlotService } from '../slots/slotService.js';
import { walletRequired } from '../slots/slotService.js';
import type { SlotTransferService, TransferResult } from '../slots/slotTransferService.js';

export interface CreateListingInput {
  userUuid: number;
  clientId: string;
  /** Wei as a decimal string. */
  price: string;
  /** Which of the user's slots of the app; 0 (their first) by default. */
  metaIdx?: number;
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

/**
 * The marketplace (decisions §3): a user lists their OAuth rights and slot for an app while their
 * status for it is `logged_out`; a buyer's purchase moves the slot through the same ticketed
 * transfer as `exchange_token_owner` and revokes the seller's tokens for the app. Two buyers at
 * once: the listing is claimed by one conditional UPDATE before the chain step, so exactly one
 * wins; a failed chain step puts the listing back on offer. The price is recorded and shown, not
 * collected (payment is outside this service; see docs/slots.md).
 */
export class MarketService {
  constructor(
    private readonly market: MarketStore,
    private readonly slots: SlotService,
    private readonly transfers: SlotTransferService,
    private readonly status: LoginStatusPort,
    private readonly grants: TokenGrants,
    private readonly wallets: WalletStore,
  ) {
    // A slot that changed owner any other way is no longer the seller's to sell.
    transfers.onTransferred(async ({ slot }) => void (await market.cancelForSlot(slot.id)));
  }

  async createListing(input: CreateListingInput): Promise<Listing> {
    if ((await this.status.getStatus(input.userUuid, input.clientId)) !== 'logged_out')
      throw statusNotLoggedOut();
    const slot = await this.slots.slotAt(input.clientId, input.userUuid, input.metaIdx ?? 0);
    if (!slot) throw notFound('slot_not_found', 'The user has no slot of this app to list');
    if (slot.state !== 'active') throw conflict('slot_busy', 'The slot is being transferred');
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

  async purchase(id: string, buyerUuid: number): Promise<Purchase> {
    const found = await this.market.find(id);
    if (!found) throw notFound('listing_not_found', 'No such listing');
    const listing = await this.#settleStaleClaim(found);
    if (listing.status !== 'active') throw listingNotAvailable();
    if (listing.sellerUuid === buyerUuid) throw conflict('own_listing', 'You cannot buy your own listing');
    if (!(await this.wallets.mainWallet(buyerUuid))) throw walletRequired();
    const slot = await this.slots.findSlot(listing.slotId);
    if (!slot || slot.ownerUuid !== listing.sellerUuid) {
      await this.market.cancelForSlot(listing.slotId);
      throw listingNotAvailable();
    }
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
      transfer = await this.transfers.exchange(ticket.state, binding);
    } catch (err) {
      await this.market.release(id, buyerUuid).catch(() => undefined);
      throw err;
    }
    await this.market.markSold(id, buyerUuid, transfer.txHash ?? '');
    await this.grants.revokeUserClient(listing.sellerUuid, listing.clientId, 'slot_sold');
    return { listing: (await this.market.find(id))!, transfer };
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
      await this.market.markSold(listing.id, listing.buyerUuid, '');
    } else if (slot?.ownerUuid === listing.sellerUuid && slot.state === 'active') {
      await this.market.release(listing.id, listing.buyerUuid);
    }
    return (await this.market.find(listing.id)) ?? listing;
  }
}
