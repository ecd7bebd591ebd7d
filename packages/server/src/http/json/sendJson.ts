import type { FastifyReply } from 'fastify';
import { stringifyLossless } from './losslessJson.js';

/** Fastify's own JSON content type: a string sent with it goes out as is, as the serialised object would. */
const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * Sends JSON text the route wrote itself (200), with the content type Fastify gives serialised JSON. For an
 * answer written once and sent many times; the text must match the route's 200 schema (no serializer runs).
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type(JSON_UTF8).send(json);
}

/**
 * Sends `body` as JSON text built by `stringifyLossless`, so slot ids held as `JsonRawNumber` go out
 * as exact raw numbers. Fastify sends a string with a JSON content type as is (no serializer runs).
 */
export function sendLosslessJson(
  reply: FastifyReply,
  status: number,
  body: Record<string, unknown>,
): FastifyReply {
  return reply.status(status).type(JSON_UTF8).send(stringifyLossless(body));
}
