import { Type } from 'typebox';
import type { Services } from '../../composition/index.js';
import { safeEqual } from '../../crypto/constantTime.js';
import { unauthorized } from '../../errors.js';
import { bearerToken } from '../adminAuth.js';
import { routeLimit } from '../rateLimits.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';

const HEALTHY = Object.freeze({ status: 'ok' });

export async function healthRoutes(app: App, services: Services): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['ops'],
        summary: 'Liveness',
        response: { 200: Type.Object({ status: Type.String() }) },
      },
    },
    // Not async, and one answer object: a load balancer polls this, and it is the app's floor in the benchmarks.
    (_request, reply) => {
      void reply.send(HEALTHY);
    },
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['ops'],
        summary:
          'Readiness: 200 only when the database and the chain answer (`degraded` when funds are low); each check (deposit, balances) only with the admin key',
        response: {
          200: Type.Object({
            status: Type.String(),
            checks: Type.Optional(Type.Record(Type.String(), Type.String())),
          }),
          503: Type.Object({
            success: Type.Boolean(),
            error: Type.String(),
            message: Type.String(),
            checks: Type.Optional(Type.Record(Type.String(), Type.String())),
          }),
          ...errorResponses(401, 429),
        },
      },
      // Each call queries the database and the chain: bounded per address (RATE_LIMITS `readyz`).
      config: { rateLimit: routeLimit(services.config.rateLimits, 'readyz') },
      // One that sends a key compares it: it counts in the admin key's limit first (decisions §8).
      onRequest: (request, reply, done) => {
        if (request.headers.authorization === undefined) return done();
        app.adminRateLimit(request, reply, done);
      },
    },
    async (request, reply) => {
      // Anonymous callers (load balancers) learn the status only; the checks name the paymaster deposit
      // and the relayer balances, for the operator with the admin key (decisions §8).
      const detailed = isAdmin(
        request.headers.authorization,
        bearerToken(request),
        services.secrets.adminApiKey,
      );
      const checks: Record<string, string> = {};
      const probes = Object.entries(services.readinessProbes);
      const results = await Promise.allSettled(probes.map(([, probe]) => probe()));
      let ready = true;
      let degraded = false;
      results.forEach((r, i) => {
        const name = probes[i]![0];
        if (r.status === 'rejected') {
          checks[name] = notReadyDetail(r.reason);
          ready = false;
        } else if (typeof r.value === 'object') {
          checks[name] = r.value.degraded;
          degraded = true;
        } else {
          checks[name] = typeof r.value === 'string' ? r.value : 'ok';
        }
      });
      if (!ready) {
        const down = Object.keys(checks).filter((k) => checks[k] !== 'ok');
        return reply
          .status(503)
          .send(
            detailed
              ? { success: false, error: 'not_ready', message: `Unavailable: ${down.join(', ')}`, checks }
              : { success: false, error: 'not_ready', message: 'Not ready' },
          );
      }
      // Degraded is still 200: the service answers, but an operator must act (low funds, docs/operations.md).
      const status = degraded ? 'degraded' : 'ready';
      return reply.status(200).send(detailed ? { status, checks } : { status });
    },
  );
}

/**
 * Whether a `/readyz` caller gets the checks: no `Authorization` header is anonymous; a header that is
 * not the admin key is refused (401, counted by the admin limiter), so a typo does not pass for "no details".
 */
function isAdmin(header: string | undefined, token: string | undefined, adminApiKey: string): boolean {
  if (header === undefined) return false;
  if (token === undefined || !safeEqual(token, adminApiKey)) {
    throw unauthorized('invalid_admin_key', 'A valid admin API key is required for the readiness details');
  }
  return true;
}

/** A probe that knows why it is not ready (a chain recovery in progress) says so; others say `unavailable`. */
function notReadyDetail(reason: unknown): string {
  return reason instanceof Error && reason.name === 'ChainNotReadyError' ? reason.message : 'unavailable';
}
