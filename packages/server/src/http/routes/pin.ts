import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { getAddress, isAddress } from 'viem';
import type { Services } from '../../composition.js';
import { KEY_SHARE_PATTERN, PIN_HASH_PATTERN, PIN_SALT_PATTERN } from '../../crypto/keyShares.js';
import { AppError, forbidden, invalidField } from '../../errors.js';
import type { Call } from '../../services/custody/walletChain.js';
import { authOf, bearerSecurity, requireToken } from '../auth.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';

/** Field schemas shared by the PIN, recovery and transfer routes (decisions §3–4). */
export const PinFields = {
  userUuid: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'The caller’s user_uuid, a JSON number; must equal the login JWT’s `sub`',
  }),
  pinHash: Type.String({
    pattern: PIN_HASH_PATTERN,
    description: 'Lowercase hex SHA-256 of the UTF-8 text PIN + pin_salt (64 characters)',
  }),
  pinSalt: Type.String({ pattern: PIN_SALT_PATTERN, description: '64 hex characters' }),
  keyShareUser: Type.String({
    pattern: KEY_SHARE_PATTERN,
    description: 'The client’s key share: 32 bytes as 64 hex characters',
  }),
  address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: '0x-prefixed 20-byte address' }),
  uint: Type.String({ pattern: '^[0-9]{1,78}$', description: 'Non-negative integer as a decimal string' }),
};

const Mnemonic = Type.String({
  pattern: '^\\s*[A-Za-z]+(\\s+[A-Za-z]+){11}\\s*$',
  maxLength: 300,
  description: '12 English BIP-39 words separated by spaces',
});

const CallBody = Type.Object({
  to: PinFields.address,
  value: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,78}$', description: 'Wei sent with the call (decimal string)' }),
  ),
  data: Type.Optional(
    Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 131_074, description: 'Call data (hex)' }),
  ),
});

/**
 * Checksums a schema-valid address. Mixed case must be a valid EIP-55 checksum (a wrong one is
 * usually a typo): 400 naming the field. All-lowercase or all-uppercase carries no checksum.
 */
export function toAddress(value: string, field: string): `0x${string}` {
  const hex = value.slice(2);
  const unchecked = hex === hex.toLowerCase() || hex === hex.toUpperCase();
  if (!unchecked && !isAddress(value, { strict: true })) {
    throw invalidField(field, `${field} has a wrong EIP-55 checksum`);
  }
  return getAddress(value.toLowerCase());
}

/** PIN endpoints act only for the user of the login JWT. */
function requireSameUser(request: FastifyRequest, userUuid: number): void {
  if (authOf(request).userId !== String(userUuid)) {
    throw forbidden('user_mismatch', 'user_uuid is not the user of the login token');
  }
}

/** Per-user limit of one PIN route (the lockout bounds wrong PINs; this bounds PBKDF2 work too). */
const perUser = (route: string, max: number) => ({
  rateLimit: {
    max,
    timeWindow: '1 minute',
    keyGenerator: (request: FastifyRequest) => `${route}:${request.auth?.userId ?? request.ip}`,
  },
});

/** Requests per client address per minute over all PIN and recovery routes together. */
export const PIN_ROUTES_PER_IP_PER_MINUTE = 600;

const addressLimiters = new WeakMap<Services, (request: FastifyRequest) => Promise<void>>();

/**
 * One per-address limiter shared by every route that makes PBKDF2 or chain work for a caller (PIN,
 * e-mail verification, transfer), so one address spreading requests over many users and routes is
 * still bounded. Runs first, before any token is verified.
 */
export function perAddressLimiter(app: App, services: Services): (request: FastifyRequest) => Promise<void> {
  let hook = addressLimiters.get(services);
  if (!hook) {
    const limiter = app.createRateLimit({
      max: PIN_ROUTES_PER_IP_PER_MINUTE,
      timeWindow: 60_000,
      keyGenerator: (request) => `pin-ip:${request.ip}`,
    });
    hook = async (request) => {
      const result = await limiter(request);
      if (!result.isAllowed && result.isExceeded) {
        throw new AppError(429, 'rate_limited', 'Too many requests from this address, slow down', {
          retryAfterSeconds: result.ttlInSeconds,
        });
      }
    };
    addressLimiters.set(services, hook);
  }
  return hook;
}

/** Spec endpoints 9–12: PIN registration, verification, reset and recovery. */
export async function pinRoutes(app: App, services: Services): Promise<void> {
  const { custody } = services;
  const limitAddress = perAddressLimiter(app, services);
  const requireLogin = requireToken(services.authenticator, 'login');
  // A fresh array per route: the rate-limit plugin appends each route's own limiter to it.
  const loginOnly = () => [limitAddress, requireLogin];

  app.post(
    '/v1/pin/register',
    {
      onRequest: loginOnly(),
      schema: {
        tags: ['pin'],
        summary: 'Create the user’s wallet and owner key, split under the PIN (spec endpoint 9)',
        security: bearerSecurity,
        body: Type.Object({
          user_uuid: PinFields.userUuid,
          pin_hash: PinFields.pinHash,
          pin_salt: PinFields.pinSalt,
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Array(
              Type.Object({
                address: Type.String({ description: 'Main wallet (counterfactual until first used)' }),
                mnemonic: Type.String({
                  description: 'hex(iv ‖ AES-256-CTR(SHA-256("dauth/mnemonic/v1:" + pin_hash), mnemonic))',
                }),
                key_share_user: Type.String(),
              }),
            ),
          }),
          ...errorResponses(400, 401, 403, 409, 429, 503),
        },
      },
      config: perUser('pin-register', 10),
    },
    async (request) => {
      requireSameUser(request, request.body.user_uuid);
      const wallet = await custody.register(request.body.user_uuid, request.body.pin_hash);
      return {
        success: true,
        data: [
          { address: wallet.address, mnemonic: wallet.mnemonicEnc, key_share_user: wallet.keyShareUser },
        ],
      };
    },
  );

  app.post(
    '/v1/pin/verify',
    {
      onRequest: loginOnly(),
      schema: {
        tags: ['pin'],
        summary:
          'Prove the PIN, or sign and submit one sponsored operation from the main wallet (spec endpoint 10)',
        security: bearerSecurity,
        body: Type.Object({
          user_uuid: PinFields.userUuid,
          pin_hash: PinFields.pinHash,
          pin_salt: PinFields.pinSalt,
          key_share_user: PinFields.keyShareUser,
          calls: Type.Optional(Type.Array(CallBody, { maxItems: 16 })),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            address: Type.Optional(Type.String({ description: 'Main wallet (PIN proof without calls)' })),
            user_op_hash: Type.Optional(Type.String()),
            tx_hash: Type.Optional(Type.String()),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 422, 423, 429, 503),
        },
      },
      config: perUser('pin-verify', 30),
    },
    async (request) => {
      const body = request.body;
      requireSameUser(request, body.user_uuid);
      const calls: Call[] | undefined = body.calls?.map((c, i) => ({
        to: toAddress(c.to, `calls.${i}.to`),
        value: BigInt(c.value ?? '0'),
        data: (c.data ?? '0x') as `0x${string}`,
      }));
      const result = await custody.verify(
        body.user_uuid,
        { pinHash: body.pin_hash, keyShareUser: body.key_share_user },
        calls,
      );
      if ('userOpHash' in result) {
        return { success: true, user_op_hash: result.userOpHash, tx_hash: result.txHash };
      }
      return { success: true, address: result.address };
    },
  );

  app.post(
    '/v1/pin/reset',
    {
      onRequest: loginOnly(),
      schema: {
        tags: ['pin'],
        summary:
          'Set a new PIN with the mnemonic; same owner and wallet, no chain transaction (spec endpoint 11)',
        security: bearerSecurity,
        body: Type.Object({
          user_uuid: PinFields.userUuid,
          mnemonic: Mnemonic,
          new_pin_hash: PinFields.pinHash,
          new_pin_salt: PinFields.pinSalt,
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            address: Type.String(),
            key_share_user: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      },
      config: perUser('pin-reset', 10),
    },
    async (request) => {
      const body = request.body;
      requireSameUser(request, body.user_uuid);
      const result = await custody.reset(body.user_uuid, body.mnemonic, body.new_pin_hash);
      return { success: true, address: result.address, key_share_user: result.keyShareUser };
    },
  );

  app.post(
    '/v1/pin/recover',
    {
      onRequest: loginOnly(),
      schema: {
        tags: ['pin'],
        summary:
          'Rotate the wallet owner key after e-mail verification; the address stays (spec endpoint 12)',
        security: bearerSecurity,
        body: Type.Object({
          user_uuid: PinFields.userUuid,
          pin_hash: PinFields.pinHash,
          pin_salt: PinFields.pinSalt,
          verification_token: Type.String({
            minLength: 16,
            maxLength: 200,
            description: 'From POST /v1/auth/email/verify with purpose pin_recover',
          }),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            address: Type.String(),
            mnemonic_enc: Type.String(),
            key_share_user: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 429, 502, 503),
        },
      },
      config: perUser('pin-recover', 5),
    },
    async (request) => {
      const body = request.body;
      requireSameUser(request, body.user_uuid);
      const result = await custody.recover(body.user_uuid, body.pin_hash, body.verification_token);
      return {
        success: true,
        address: result.address,
        mnemonic_enc: result.mnemonicEnc,
        key_share_user: result.keyShareUser,
      };
    },
  );
}
