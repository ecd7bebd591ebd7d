import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { forbidden, notFound } from '../../../errors.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { sendLosslessJson as sendJson } from '../../json/sendJson.js';
import { listingJson, slotIdJson } from '../../json/slotJson.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { routeLimit } from '../../rateLimits.js';
import { PinFields } from '../pin/pinRequest.js';

/** The PIN trio of decisions §4, optional in the schema so that its absence is 401 `pin_required`. */
const PinTrio = {
  pin_hash: Type.Optional(PinFields.pinHash),
  pin_salt: Type.Optional(PinFields.pinSalt),
  key_share_user: Type.Optional(PinFields.keyShareUser),
};
const pinOf = (body: { pin_hash?: string; pin_salt?: string; key_share_user?: string } | undefined) =>
  body?.pin_hash !== undefined && body.pin_salt !== undefined && body.key_share_user !== undefined
    ? { pinHash: body.pin_hash, keyShareUser: body.key_share_user }
    : undefined;

const ListingBody = Type.Object({
  id: Type.String(),
  user_id: Type.String({ description: 'The seller' }),
  client_id: Type.String(),
  slot_id: Type.Union([Type.Integer(), Type.String()], {
    description: 'Raw 19-digit number (decimal string for imported slots): parse losslessly',
  }),
  price: Type.String({ description: 'Wei, decimal string' }),
  status: Type.Union([
    Type.Literal('active'),
    Type.Literal('pending'),
    Type.Literal('sold'),
    Type.Literal('cancelled'),
  ]),
  buyer_id: Type.Optional(Type.String()),
  payment: Type.Optional(
    Type.String({
      description:
        '`onchain`: the price was paid in the sale operation; `not_collected`: a sale before payments',
    }),
  ),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
});

const ListingId = Type.Object({
  id: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' }),
});

/**
 * The marketplace (decisions §3, §7): list your OAuth rights and slot for an app while logged_out
 * (your bearer and PIN), browse listings without logging in, buy with your login JWT and PIN: the
 * price moves from your main wallet to the seller's with the slot, in one operation.
 */
export async function marketRoutes(app: App, services: Services): Promise<void> {
  const { market } = services;
  const loginToken = requireToken(services.authenticator, 'login');
  const anyToken = requireToken(services.authenticator, 'any');

  app.post(
    '/v1/market/listings',
    {
      schema: {
        tags: ['marketplace'],
        summary:
          "List the caller's OAuth rights and slot for an app: the slot owner's bearer (login JWT or that app's access token) and PIN trio; status must be logged_out",
        security: bearerSecurity,
        body: Type.Object({
          user_id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }),
          client_id: Type.String({ minLength: 1, maxLength: 200 }),
          price: Type.String({
            pattern: '^(0|[1-9][0-9]{0,77})$',
            format: 'uint256',
            description: 'Wei of the native token, decimal string ≥ 0',
          }),
          meta_idx: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
          ...PinTrio,
        }),
        response: {
          201: Type.Object({ success: Type.Boolean(), listing: ListingBody }),
          ...errorResponses(400, 401, 403, 404, 409, 423),
        },
      },
      preHandler: anyToken,
      config: { rateLimit: routeLimit(services.config.rateLimits, 'market_create') },
    },
    async (request, reply) => {
      const claims = authOf(request);
      const body = request.body;
      if (claims.userId !== body.user_id) {
        throw forbidden('forbidden', 'A bearer token may only list its own user’s slot');
      }
      if (claims.use === 'access' && claims.clientId !== body.client_id) {
        throw forbidden('forbidden', 'The access token may only list a slot of its own app');
      }
      const listing = await market.createListing({
        userUuid: Number(body.user_id),
        clientId: body.client_id,
        price: body.price,
        pin: pinOf(body),
        ...(body.meta_idx !== undefined ? { metaIdx: body.meta_idx } : {}),
      });
      return sendJson(reply, 201, { success: true, listing: listingJson(listing) });
    },
  );

  app.get(
    '/v1/market/listings',
    {
      schema: {
        tags: ['marketplace'],
        summary: 'Listings on offer (public)',
        querystring: Type.Object({
          client_id: Type.Optional(Type.String({ maxLength: 200 })),
          limit: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })),
        }),
        response: { 200: Type.Object({ success: Type.Boolean(), listings: Type.Array(ListingBody) }) },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'market_list') },
    },
    async (request, reply) => {
      const limit = Math.min(Number(request.query.limit ?? 100), 200);
      const listings = await market.list({ clientId: request.query.client_id, limit });
      return sendJson(reply, 200, { success: true, listings: listings.map(listingJson) });
    },
  );

  app.get(
    '/v1/market/listings/:id',
    {
      schema: {
        tags: ['marketplace'],
        summary: 'One listing (public)',
        params: ListingId,
        response: {
          200: Type.Object({ success: Type.Boolean(), listing: ListingBody }),
          ...errorResponses(404, 429),
        },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'market_listing') },
    },
    async (request, reply) => {
      const listing = await market.find(request.params.id);
      if (!listing) throw notFound('listing_not_found', 'No such listing');
      return sendJson(reply, 200, { success: true, listing: listingJson(listing) });
    },
  );

  app.post(
    '/v1/market/listings/:id/purchase',
    {
      schema: {
        tags: ['marketplace'],
        summary:
          "Buy a listing with the buyer's login JWT and PIN trio: one operation pays the price to the seller's wallet and moves the slot",
        security: bearerSecurity,
        params: ListingId,
        body: Type.Optional(Type.Object(PinTrio)),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            listing: ListingBody,
            tx_hash: Type.Union([Type.String(), Type.Null()]),
            user_op_hash: Type.Union([Type.String(), Type.Null()]),
            slot_id: Type.Union([Type.Integer(), Type.String()]),
            from_address: Type.String(),
            to_address: Type.String(),
          }),
          ...errorResponses(400, 401, 404, 409, 422, 423, 503),
        },
      },
      preHandler: loginToken,
      config: { rateLimit: routeLimit(services.config.rateLimits, 'market_purchase') },
    },
    async (request, reply) => {
      const { listing, transfer } = await market.purchase(
        request.params.id,
        Number(authOf(request).userId),
        pinOf(request.body),
      );
      return sendJson(reply, 200, {
        success: true,
        listing: listingJson(listing),
        tx_hash: transfer.txHash ?? null,
        user_op_hash: transfer.userOpHash ?? null,
        slot_id: slotIdJson(transfer.slot),
        from_address: transfer.fromAddress,
        to_address: transfer.toAddress,
      });
    },
  );

  app.delete(
    '/v1/market/listings/:id',
    {
      schema: {
        tags: ['marketplace'],
        summary: "Withdraw one's own listing (login JWT, or an access token for the listing's app)",
        security: bearerSecurity,
        params: ListingId,
        response: {
          200: Type.Object({ success: Type.Boolean(), listing: ListingBody }),
          ...errorResponses(401, 403, 404, 409),
        },
      },
      preHandler: anyToken,
    },
    async (request, reply) => {
      const claims = authOf(request);
      const existing = await market.find(request.params.id);
      if (!existing) throw notFound('listing_not_found', 'No such listing');
      if (claims.use === 'access' && claims.clientId !== existing.clientId) {
        throw forbidden('forbidden', "The access token is for another app than the listing's");
      }
      const listing = await market.cancel(request.params.id, Number(claims.userId));
      return sendJson(reply, 200, { success: true, listing: listingJson(listing) });
    },
  );
}
