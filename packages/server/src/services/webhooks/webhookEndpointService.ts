import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../crypto/secretBox.js';
import { AppError, invalidField } from '../../errors.js';
import type {
  DeliveryState,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookStore,
} from '../../stores/webhookStore.js';
import type { CallbackTargetPolicy } from '../oauth/callbackTargetPolicy.js';
import type { AppAccess } from '../orgs/appAccess.js';
import type { Actor, AppAction } from '../orgs/roles.js';
import { webhookSecretAad } from './webhookDispatcher.js';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from './webhookEvents.js';
import { newWebhookSecret } from './webhookSigner.js';

/** Endpoints per app: enough for staging and production receivers, bounded so fan-out stays cheap. */
export const MAX_WEBHOOKS_PER_APP = 10;

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  createdAt: number;
  /** Since when a delivery was given up on (retries spent); cleared by the next success. */
  failingSince: number | undefined;
  previousSecretValidUntil: number | undefined;
}

export interface DeliveryView extends WebhookDelivery {
  attemptLog: WebhookAttempt[];
}

const webhookNotFound = () =>
  new AppError(404, 'webhook_not_found', 'This app has no webhook endpoint with this id');

const viewOf = (e: WebhookEndpoint, now: number): WebhookEndpointView => ({
  id: e.id,
  url: e.url,
  events: e.events,
  createdAt: e.createdAt,
  failingSince: e.failingSince,
  previousSecretValidUntil:
    e.previousSecretExpiresAt !== undefined && e.previousSecretExpiresAt > now
      ? e.previousSecretExpiresAt
      : undefined,
});

/**
 * An app owner's webhook endpoints (decisions §8 "Events"): create (the `whsec_` secret is shown
 * once; it is kept sealed under MASTER_KEY because every delivery is signed with it), list, change,
 * delete, rotate the secret with a grace period, and the deliveries with their attempts and a manual
 * retry. Members of the app's organization by role (docs/orgs.md): `viewer` reads, `developer` changes;
 * another organization's app answers `client_not_found`, like a missing one.
 */
export class WebhookEndpointService {
  constructor(
    private readonly store: WebhookStore,
    private readonly access: Pick<AppAccess, 'require'>,
    private readonly secretBox: SecretBox,
    private readonly targets: CallbackTargetPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  async create(
    actor: Actor,
    clientId: string,
    input: { url: string; events: string[] },
  ): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    await this.access.require(clientId, actor, 'configure', 'webhooks:write');
    const url = await this.#checkUrl(input.url);
    const events = checkEvents(input.events);
    if ((await this.store.countEndpoints(clientId)) >= MAX_WEBHOOKS_PER_APP) {
      throw new AppError(
        409,
        'too_many_webhooks',
        `An app has at most ${MAX_WEBHOOKS_PER_APP} webhook endpoints`,
      );
    }
    const id = `wh_${randomBytes(12).toString('hex')}`;
    const secret = newWebhookSecret();
    const endpoint: WebhookEndpoint = {
      id,
      clientId,
      url,
      events,
      secretSealed: this.secretBox.seal(secret, webhookSecretAad(id)),
      previousSecretSealed: undefined,
      previousSecretExpiresAt: undefined,
      failingSince: undefined,
      createdAt: this.now(),
    };
    await this.store.insertEndpoint(endpoint);
    return { endpoint: viewOf(endpoint, this.now()), secret };
  }

  async list(actor: Actor, clientId: string): Promise<WebhookEndpointView[]> {
    await this.access.require(clientId, actor, 'read');
    const now = this.now();
    return (await this.store.listEndpoints(clientId)).map((e) => viewOf(e, now));
  }

  async get(actor: Actor, clientId: string, id: string): Promise<WebhookEndpointView> {
    return viewOf(await this.#endpoint(actor, clientId, id, 'read'), this.now());
  }

  async update(
    actor: Actor,
    clientId: string,
    id: string,
    changes: { url?: string | undefined; events?: string[] | undefined },
  ): Promise<WebhookEndpointView> {
    await this.#endpoint(actor, clientId, id, 'configure');
    if (changes.url === undefined && changes.events === undefined) {
      throw new AppError(400, 'invalid_request', 'Give url and/or events to change', { field: 'url' });
    }
    const url = changes.url === undefined ? undefined : await this.#checkUrl(changes.url);
    const events = changes.events === undefined ? undefined : checkEvents(changes.events);
    if (!(await this.store.updateEndpoint(clientId, id, { url, events }))) throw webhookNotFound();
    return this.get(actor, clientId, id);
  }

  async remove(actor: Actor, clientId: string, id: string): Promise<void> {
    await this.access.require(clientId, actor, 'configure', 'webhooks:write');
    if (!(await this.store.deleteEndpoint(clientId, id, this.now()))) throw webhookNotFound();
  }

  /** A new secret, shown once; deliveries carry signatures by both until `previousValidUntil`. */
  async rotateSecret(
    actor: Actor,
    clientId: string,
    id: string,
    graceSeconds: number,
  ): Promise<{ secret: string; previousValidUntil: number }> {
    const endpoint = await this.#endpoint(actor, clientId, id, 'configure');
    const secret = newWebhookSecret();
    const previousValidUntil = this.now() + graceSeconds * 1000;
    const rotated = await this.store.rotateSecret(
      clientId,
      id,
      this.secretBox.seal(secret, webhookSecretAad(id)),
      endpoint.secretSealed,
      previousValidUntil,
    );
    if (!rotated) throw webhookNotFound();
    return { secret, previousValidUntil };
  }

  async deliveries(
    actor: Actor,
    clientId: string,
    id: string,
    query: { limit: number; state?: DeliveryState | undefined },
  ): Promise<DeliveryView[]> {
    await this.#endpoint(actor, clientId, id, 'read');
    const deliveries = await this.store.listDeliveries(id, query.limit, query.state);
    const attempts = await this.store.listAttempts(
      id,
      deliveries.map((d) => d.msgId),
    );
    return deliveries.map((d) => ({ ...d, attemptLog: attempts.get(d.msgId) ?? [] }));
  }

  /** Sends a delivery again now (same `webhook-id`), whatever its state. */
  async retry(actor: Actor, clientId: string, id: string, msgId: string): Promise<void> {
    await this.#endpoint(actor, clientId, id, 'configure');
    const delivery = await this.store.findDelivery(id, msgId);
    if (!delivery)
      throw new AppError(404, 'delivery_not_found', 'This endpoint has no delivery with this id');
    if (!(await this.store.retryNow(id, msgId, this.now()))) {
      throw new AppError(
        409,
        'delivery_in_progress',
        'This delivery is being attempted right now; try again shortly',
      );
    }
  }

  async #endpoint(actor: Actor, clientId: string, id: string, action: AppAction): Promise<WebhookEndpoint> {
    await this.access.require(clientId, actor, action, action === 'read' ? undefined : 'webhooks:write');
    const endpoint = await this.store.findEndpoint(clientId, id);
    if (!endpoint) throw webhookNotFound();
    return endpoint;
  }

  /** The callbacks' rules (decisions §7): http(s) only, https outside loopback in production, no private or metadata target. */
  async #checkUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new AppError(400, 'invalid_webhook_url', 'url must be an absolute http(s) URL', { field: 'url' });
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new AppError(400, 'invalid_webhook_url', 'url must use https (or http)', { field: 'url' });
    }
    if (url.username || url.password) {
      throw new AppError(400, 'invalid_webhook_url', 'url must not carry credentials', { field: 'url' });
    }
    if (url.hash)
      throw new AppError(400, 'invalid_webhook_url', 'url must not have a fragment', { field: 'url' });
    const problem = await this.targets.registrationProblem(url.href);
    if (problem) throw new AppError(400, 'invalid_webhook_url', `url ${problem}`, { field: 'url' });
    return url.href;
  }
}

function checkEvents(events: string[]): string[] {
  const unique = [...new Set(events)];
  if (unique.length === 0) throw invalidField('events', 'events must name at least one event type');
  for (const type of unique) {
    if (!isWebhookEventType(type)) {
      throw invalidField(
        'events',
        `events: unknown type ${JSON.stringify(type)} (known: ${WEBHOOK_EVENT_TYPES.join(', ')})`,
      );
    }
  }
  return unique;
}
