import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { OrgService } from '../services/orgs/orgService.js';
import { userActor } from '../services/orgs/roles.js';
import { methodsOf } from './routeHooks.js';
import type { App } from './types.js';

type Fields = Record<string, unknown>;

/** The management routes of an app (docs/orgs.md): every one that changes something is in its org's log. */
export const APP_MANAGEMENT_PREFIX = '/v1/dev-user/clients/:id';

/** Content-provider routes keyed by the body's `client_id` (their changes are app changes too). */
const PROVIDER_CHANGES: Record<string, string> = {
  'POST /v1/development-api/init_permission_provider': 'provider.register',
  'POST /v1/development-api/payload_mode': 'provider.payload_mode',
  'POST /v1/development-api/consume_auth': 'provider.consume_auth',
  'POST /v1/development-api/release_used_balance': 'provider.release',
};

/** Names of the known changes; a management route added later is recorded as `app.change` with its route. */
const APP_CHANGES: Record<string, string> = {
  'PATCH /v1/dev-user/clients/:id': 'app.update',
  'DELETE /v1/dev-user/clients/:id': 'app.delete',
  'POST /v1/dev-user/clients/:id/rotate-secret': 'app.rotate_secret',
  'POST /v1/dev-user/clients/:id/webhooks': 'webhook.create',
  'PATCH /v1/dev-user/clients/:id/webhooks/:wid': 'webhook.update',
  'DELETE /v1/dev-user/clients/:id/webhooks/:wid': 'webhook.delete',
  'POST /v1/dev-user/clients/:id/webhooks/:wid/rotate-secret': 'webhook.rotate_secret',
  'POST /v1/dev-user/clients/:id/webhooks/:wid/deliveries/:did/retry': 'webhook.retry',
  'PUT /v1/dev-user/clients/:id/wallet-policy': 'wallet_policy.set',
  'DELETE /v1/dev-user/clients/:id/wallet-policy': 'wallet_policy.delete',
};

/** Non-secret fields worth keeping: names, URIs, roles and flags, never a secret or a key. */
const KEPT_FIELDS = ['name', 'redirect_uris', 'require_mfa', 'url', 'events', 'cuid', 'mode', 'release_per'];

function actionOf(method: string, url: string): string | undefined {
  const key = `${method} ${url}`;
  if (PROVIDER_CHANGES[key]) return PROVIDER_CHANGES[key];
  if (method === 'GET' || method === 'HEAD' || !url.startsWith(APP_MANAGEMENT_PREFIX)) return undefined;
  return APP_CHANGES[key] ?? 'app.change';
}

/**
 * Writes every successful change to an app (decisions §9: "every change is in the org's audit log") to
 * its organization's audit log, after the answer: the management routes need no audit code of their own,
 * and one added later is recorded too. Organization changes themselves are recorded by `OrgService`.
 */
export function installOrgAuditRecorder(app: App, orgs: OrgService, logger: Logger): void {
  const record = async (request: FastifyRequest, reply: FastifyReply) => {
    if (reply.statusCode >= 300 || !request.auth || request.auth.use !== 'login') return;
    const url = request.routeOptions.url ?? '';
    const action = actionOf(request.method, url);
    if (!action) return;
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Fields;
    const params = (request.params ?? {}) as Fields;
    const clientId =
      typeof params.id === 'string' && url.startsWith(APP_MANAGEMENT_PREFIX) ? params.id : body.client_id;
    if (typeof clientId !== 'string') return;
    const details: Fields = {};
    for (const name of KEPT_FIELDS) if (body[name] !== undefined) details[name] = body[name];
    if (typeof params.wid === 'string') details.webhook_id = params.wid;
    if (action === 'app.change') details.route = `${request.method} ${url}`;
    await orgs
      .recordAppChange(clientId, userActor(request.auth.userId), action, details)
      .catch((err: unknown) => logger.error({ err, action }, 'org audit entry not written'));
  };
  app.addHook('onRoute', (route) => {
    const methods = methodsOf(route);
    if (!methods.some((method) => actionOf(method, route.url))) return;
    const hooks = route.onResponse;
    route.onResponse = [
      ...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]),
      record,
    ] as typeof route.onResponse;
  });
}
