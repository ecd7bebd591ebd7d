import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../crypto/constantTime.js';
import { unauthorized } from '../errors.js';

/** Reads `Authorization: Bearer <token>`; undefined when absent or not a bearer header. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** `onRequest` guard of `/v1/admin/*` (runs before the body is read or validated): the ADMIN_API_KEY as a bearer token, compared in constant time. */
export function requireAdmin(adminApiKey: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = bearerToken(request);
    if (!token || !safeEqual(token, adminApiKey)) {
      throw unauthorized('invalid_admin_key', 'A valid admin API key is required');
    }
  };
}
