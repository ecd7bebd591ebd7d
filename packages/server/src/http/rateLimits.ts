import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';

/** Password guesses allowed per client address and e-mail each minute, across every sign-in route. */
export const LOGIN_ATTEMPTS_PER_MINUTE = 10;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The rate limit of every password sign-in route (the login API and the login page). One limiter,
     * so they count in one bucket: a guess on either route uses up the same allowance.
     */
    loginRateLimit: preHandlerAsyncHookHandler;
  }
}

/**
 * Creates the shared sign-in limiter (after `@fastify/rate-limit` is registered). Keyed per client address
 * and e-mail, so one attacker cannot hammer one account, and a victim's own attempts from elsewhere are not
 * blocked by the attacker's. It runs as a preHandler because the key needs the parsed body.
 */
export function registerLoginRateLimit(app: FastifyInstance): void {
  const limiter = app.rateLimit({
    max: LOGIN_ATTEMPTS_PER_MINUTE,
    timeWindow: '1 minute',
    keyGenerator: (request: FastifyRequest) => {
      const email = (request.body as { email?: unknown } | undefined)?.email;
      return `login:${request.ip}:${typeof email === 'string' ? email.trim().toLowerCase() : ''}`;
    },
  });
  app.decorate('loginRateLimit', limiter);
}
