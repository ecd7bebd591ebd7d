import { Type } from 'typebox';
import type { Services } from '../../composition.js';
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
        summary: 'Readiness: 200 only when the database and the chain answer',
        response: {
          200: Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.String()) }),
          503: Type.Object({
            success: Type.Boolean(),
            error: Type.String(),
            message: Type.String(),
            checks: Type.Record(Type.String(), Type.String()),
          }),
        },
      },
    },
    async (_request, reply) => {
      const checks: Record<string, string> = {};
      const probes = Object.entries(services.readinessProbes);
      const results = await Promise.allSettled(probes.map(([, probe]) => probe()));
      let ready = true;
      results.forEach((r, i) => {
        checks[probes[i]![0]] = r.status === 'fulfilled' ? 'ok' : 'unavailable';
        if (r.status === 'rejected') ready = false;
      });
      if (!ready) {
        const down = Object.keys(checks).filter((k) => checks[k] !== 'ok');
        return reply
          .status(503)
          .send({ success: false, error: 'not_ready', message: `Unavailable: ${down.join(', ')}`, checks });
      }
      return reply.status(200).send({ status: 'ready', checks });
    },
  );
}
