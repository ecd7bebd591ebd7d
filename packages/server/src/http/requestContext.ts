import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../services/security/requestContext.js';

/** Where a request came from, for security mail: the client address as TRUST_PROXY resolves it, the user agent. */
export function requestContextOf(request: FastifyRequest): RequestContext {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent : undefined };
}
