import { Type } from 'typebox';
import type { Services } from '../../composition/index.js';
import { routeLimit } from '../rateLimits.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';

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
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['ops'],
        summary: 'Readiness: 200 only when the database and the chain answer (`degraded` when funds are low)',
        response: {
          200: Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.String()) }),
          503: Type.Object({
            success: Type.Boolean(),
            error: Type.String(),
            message: Type.String(),
            checks: Type.Record(Type.String(), Type.String()),
          }),
          ...errorResponses(429),
        },
      },
      // Each call queries the database and the chain: bounded per address (RATE_LIMITS `readyz`).
      config: { rateLimit: routeLimit(services.config.rateLimits, 'readyz') },
    },
    async (_request, reply) => {
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
          .send({ success: false, error: 'not_ready', message: `Unavailable: ${down.join(', ')}`, checks });
      }
      // Degraded is still 200: the service answers, but an operator must act (low funds, docs/operations.md).
      return reply.status(200).send({ status: degraded ? 'degraded' : 'ready', checks });
    },
  );
}

/** A probe that knows why it is not ready (a chain recovery in progress) says so; others say `unavailable`. */
function notReadyDetail(reason: unknown): string {
  return reason instanceof Error && reason.name === 'ChainNotReadyError' ? reason.message : 'unavailable';
}
