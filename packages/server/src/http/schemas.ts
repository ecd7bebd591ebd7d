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
