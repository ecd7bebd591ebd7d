import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Db } from '../db/database.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { CallbackTargetPolicy } from '../services/oauth/callbackTargetPolicy.js';
import type { AppAccess } from '../services/orgs/appAccess.js';
import { WebhookDispatcher } from '../services/webhooks/webhookDispatcher.js';
import { WebhookEndpointService } from '../services/webhooks/webhookEndpointService.js';
import { type WebhookOutbox, WebhookStore } from '../stores/webhookStore.js';

export interface WebhookDomain {
  endpoints: WebhookEndpointService;
  dispatcher: WebhookDispatcher;
  close(): Promise<void>;
}

/**
 * Wires webhooks (docs/webhooks.md): the owner's endpoints API, and this replica's delivery worker over
 * the outbox the other domains' stores write to. Metrics: queue depth, age of the oldest pending
 * delivery, attempts by outcome.
 */
export function createWebhookDomain(deps: {
  config: Pick<Config, 'webhooks'>;
  db: Db;
  logger: Logger;
  secretBox: SecretBox;
  appAccess: AppAccess;
  callbackTargets: CallbackTargetPolicy;
  outbox: WebhookOutbox;
  metrics: ServiceMetrics;
}): WebhookDomain {
  const logger = deps.logger.child({ component: 'webhooks' });
  const store = new WebhookStore(deps.db);
  const endpoints = new WebhookEndpointService(store, deps.appAccess, deps.secretBox, deps.callbackTargets);
  const dispatcher = new WebhookDispatcher(
    store,
    deps.secretBox,
    deps.callbackTargets,
    deps.config.webhooks,
    logger,
    {
      attempt: (outcome) =>
        deps.metrics.count('dauth_webhook_attempts_total', 'Webhook delivery attempts by outcome', {
          outcome,
        }),
      originOf: (msgId) => deps.outbox.originOf(msgId),
    },
  );
  deps.metrics.declareCount('dauth_webhook_attempts_total', 'Webhook delivery attempts by outcome', [
    'outcome',
  ]);
  deps.outbox.onWrite = () => dispatcher.nudge();
  let backlog: Promise<{ depth: number; oldestCreatedAt: number | undefined }> | undefined;
  // One read per scrape serves both gauges.
  const readBacklog = () => {
    backlog ??= store.backlog().finally(() => setTimeout(() => (backlog = undefined), 100).unref());
    return backlog;
  };
  deps.metrics.gauge({
    name: 'dauth_webhook_queue_depth',
    help: 'Webhook deliveries not yet delivered nor given up',
    read: async () => (await readBacklog()).depth,
  });
  deps.metrics.gauge({
    name: 'dauth_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery not yet delivered (0 when none)',
    read: async () => {
      const { oldestCreatedAt } = await readBacklog();
      return oldestCreatedAt === undefined ? 0 : Math.max(0, (Date.now() - oldestCreatedAt) / 1000);
    },
  });
  dispatcher.start();
  return {
    endpoints,
    dispatcher,
    close: () => dispatcher.close(),
  };
}
