import { Type } from 'typebox';

/** The decisions §2 error body, referenced by every route's 4xx/5xx responses in the OpenAPI document. */
export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'Stable snake_case error code' }),
    message: Type.String({ description: 'Human-readable sentence' }),
    field: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** Response schemas for the usual error statuses of a route. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as Record<number, typeof ErrorBody>;

const MAX_UINT256 = 2n ** 256n - 1n;

/**
 * Ajv format `uint256`: a decimal string of a value from 0 to 2^256 − 1. The digit pattern alone lets
 * 78-digit values above the maximum through, which then fail deep in ABI encoding (a 500): with the
 * format they are a 400 naming the field, like any other bad input.
 */
export const uint256Format = {
  type: 'string' as const,
  validate: (value: string) => /^[0-9]{1,78}$/.test(value) && BigInt(value) <= MAX_UINT256,
};
