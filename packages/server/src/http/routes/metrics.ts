import type { Services } from '../../composition/index.js';
import { requireAdmin } from '../adminAuth.js';
import type { App } from '../types.js';

/**
 * `GET /metrics`: Prometheus text. Guarded by the admin key unless METRICS_PUBLIC=true (decisions
 * §7), since route latencies and queue depths tell an attacker when the service is weakest.
 */
export async function metricsRoutes(app: App, services: Services): Promise<void> {
  const { metrics, config, secrets } = services;
  // Counted in the admin key's limit either way (decisions §8), then the key compared unless public.
  const guard = [app.adminRateLimit, ...(config.metricsPublic ? [] : [requireAdmin(secrets.adminApiKey)])];
  app.get(
    '/metrics',
    {
      schema: { tags: ['ops'], summary: 'Prometheus metrics (admin key unless METRICS_PUBLIC=true)' },
      onRequest: guard,
    },
    async (_request, reply) => {
      const { contentType, body } = await metrics.render();
      return reply.type(contentType).send(body);
    },
  );
}
