import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { KEY_SHARE_PATTERN, PIN_HASH_PATTERN, PIN_SALT_PATTERN } from '../../../crypto/keyShares.js';
import { forbidden } from '../../../errors.js';
import { authOf } from '../../auth.js';

/** Field schemas shared by the PIN, recovery and transfer routes (decisions §3–4). */
export const PinFields = {
  // The spec types it as a number, while login answers `uuid` as a string: both forms are taken.
  userUuid: Type.Union(
    [
      Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
      Type.String({ pattern: '^[1-9][0-9]{0,15}$' }),
    ],
    {
      description:
        'The caller’s user_uuid: a JSON number, or the decimal string login returns as `uuid`; must equal the login JWT’s `sub`',
    },
  ),
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
  uint: Type.String({
    pattern: '^[0-9]{1,78}$',
    format: 'uint256',
    description: 'Non-negative integer as a decimal string',
  }),
};

export const Mnemonic = Type.String({
  pattern: '^\\s*[A-Za-z]+(\\s+[A-Za-z]+){11}\\s*$',
  maxLength: 300,
  description: '12 English BIP-39 words separated by spaces',
});

export const CallBody = Type.Object({
  to: PinFields.address,
  value: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,78}$',
      format: 'uint256',
      description: 'Wei sent with the call (decimal string)',
    }),
  ),
  data: Type.Optional(
    Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 131_074, description: 'Call data (hex)' }),
  ),
});

/** PIN endpoints act only for the user of the login JWT; returns the user_uuid as a number. */
export function requireSameUser(request: FastifyRequest, userUuid: number | string): number {
  const id = Number(userUuid);
  if (!Number.isSafeInteger(id) || authOf(request).userId !== String(id)) {
    throw forbidden('user_mismatch', 'user_uuid is not the user of the login token');
  }
  return id;
}
