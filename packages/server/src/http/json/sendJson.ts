import type { FastifyReply } from 'fastify';
import { stringifyLossless } from './losslessJson.js';

/**
 * Sends `body` as JSON text built by `stringifyLossless`, so slot ids held as `JsonRawNumber` go out
 * as exact raw numbers. Fastify sends a string with a JSON content type as is (no serializer runs).
 */
export function sendLosslessJson(
  reply: FastifyReply,
  status: number,
  body: Record<string, unknown>,
): FastifyReply {
  return reply.status(status).type('application/json; charset=utf-8').send(stringifyLossless(body));
}
