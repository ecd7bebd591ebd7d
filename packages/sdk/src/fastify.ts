import type { FastifyReply, FastifyRequest } from 'fastify';
import { callbackFieldsFrom } from './nodeCallbackHandler.js';
import type { CallbackReceiver } from './nodeCallbackHandler.js';

/**
 * A Fastify route handler for the callback: `app.post('/dauth/callback', fastifyCallbackHandler(client))`.
 * Fastify parses the JSON body; register `@fastify/formbody` if form-encoded callbacks must work too.
 * Imports only Fastify's types, so the SDK has no runtime dependency on Fastify.
 */
export function fastifyCallbackHandler(
  receiver: CallbackReceiver,
): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    // Answer first; the exchange runs detached inside handleCallback.
    void reply.code(200).send();
    receiver.handleCallback(callbackFieldsFrom(request.body, query));
  };
}
