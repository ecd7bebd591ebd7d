import type { FastifyRequest } from 'fastify';

/**
 * Rate limit of a password sign-in route: per client address and per e-mail, so one attacker can
 * neither hammer one account nor spread guesses over many from one address. Runs as a preHandler
 * because the key needs the parsed body.
 */
export function loginRateLimit(keyPrefix: string) {
  return {
    max: 10,
    timeWindow: '1 minute',
    hook: 'preHandler' as const,
    keyGenerator: (request: FastifyRequest) => {
      const email = (request.body as { email?: unknown } | undefined)?.email;
      return `${keyPrefix}:${request.ip}:${typeof email === 'string' ? email.trim().toLowerCase() : ''}`;
    },
  };
}
