import type { Listing } from '../../services/market/marketService.js';
import type { Slot } from '../../services/slots/slotService.js';
import type { SlotGrant } from '../../services/backendIntegration/getTokenService.js';
import { JsonRawNumber } from './losslessJson.js';

/**
 * A slot id as decisions §5 writes it into JSON: a raw 19-digit number for a slot this service
 * created, a decimal string for an imported earlier slot. Serialise with `stringifyLossless`.
 */
export const slotIdJson = (slot: Pick<Slot, 'id' | 'imported'>): JsonRawNumber | string =>
  slot.imported ? slot.id : new JsonRawNumber(slot.id);

/** SlotInfo (spec, Resources), plus `refresh_token` and `expires_in` (decisions §5). */
export function slotInfoJson(grant: SlotGrant): Record<string, unknown> {
  return {
    id: slotIdJson(grant.slot),
    access_token: grant.tokens.accessToken,
    content_address: grant.slot.contentAddress,
    token_nickname: grant.slot.tokenNickname,
    tr_cnt: grant.slot.trCnt,
    code: grant.code,
    refresh_token: grant.tokens.refreshToken,
    expires_in: grant.tokens.expiresIn,
  };
}

/** A slot without tokens, as the authorize answer and the marketplace show it. */
export function slotSummaryJson(slot: Slot): Record<string, unknown> {
  return {
    id: slotIdJson(slot),
    client_id: slot.clientId,
    content_address: slot.contentAddress,
    token_nickname: slot.tokenNickname,
    tr_cnt: slot.trCnt,
    meta_idx: slot.metaIdx,
  };
}

/** A marketplace listing (decisions §3); the slot id follows the rule of `slotIdJson`. */
export function listingJson(listing: Listing): Record<string, unknown> {
  return {
    id: listing.id,
    user_id: String(listing.sellerUuid),
    client_id: listing.clientId,
    slot_id: slotIdJson({ id: listing.slotId, imported: listing.slotImported }),
    price: listing.price,
    status: listing.status,
    ...(listing.buyerUuid !== undefined ? { buyer_id: String(listing.buyerUuid) } : {}),
    ...(listing.payment !== undefined ? { payment: listing.payment } : {}),
    created_at: new Date(listing.createdAt).toISOString(),
  };
}
