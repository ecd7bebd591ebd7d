import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditActorKind, AuditOutcome, AuditTrail } from '../services/audit/auditTrail.js';
import { hooksOf, methodsOf } from './routeHooks.js';
import type { App } from './types.js';

type Fields = Record<string, unknown>;

/**
 * What one audited route records: its action name and the non-secret fields of the request and
 * the answer worth keeping. Fields are whitelisted, never copied wholesale, so a PIN hash, key
 * share, password, mnemonic, client secret or payload can never reach the trail.
 */
interface AuditedRoute {
  action: string;
  request?: (body: Fields, params: Fields) => Fields;
  answer?: readonly string[];
  /** Where `answer`'s fields are, when not at the top: PIN set-up answers `{success, data: [{…}]}`. */
  answerIn?: 'data0';
  /** Sign-up and login have no bearer: the account they reached is the answer's `uuid`. */
  actorFromAnswer?: true;
}

const pick =
  (...names: string[]) =>
  (body: Fields): Fields =>
    Object.fromEntries(names.filter((n) => body[n] !== undefined).map((n) => [n, body[n]]));

/** A wallet operation's calls: target, value and the 4-byte selector, never the full call data. */
function callsOf(body: Fields): Fields {
  const calls = Array.isArray(body.calls) ? (body.calls as Fields[]) : [];
  return {
    calls: calls.map((c) => ({
      to: c.to,
      value: c.value ?? '0',
      selector: typeof c.data === 'string' && c.data.length >= 10 ? c.data.slice(0, 10) : undefined,
    })),
  };
}

const CHAIN_ANSWER = ['tx_hash', 'transaction_hash', 'user_op_hash', 'address', 'slot_id'] as const;

/** Keyed by `METHOD route-template`; a route not listed here is not audited. */
const AUDITED_ROUTES: Record<string, AuditedRoute> = {
  'POST /v1/dev-user/register': { action: 'account.register', request: pick('email'), actorFromAnswer: true },
  'POST /v1/dev-user/login_devuser': {
    action: 'account.login',
    request: pick('email'),
    actorFromAnswer: true,
  },
  'POST /v1/dev-user/logout': { action: 'account.logout' },
  // Second factors (docs/mfa.md): never the secret, a code or the mfa_token.
  'POST /v1/dev-user/login/mfa': { action: 'account.login_mfa', actorFromAnswer: true },
  'POST /v1/dev-user/mfa/totp': { action: 'mfa.totp_enrol' },
  'POST /v1/dev-user/mfa/totp/confirm': { action: 'mfa.totp_confirm' },
  'DELETE /v1/dev-user/mfa/totp': { action: 'mfa.totp_remove' },
  'DELETE /v1/dev-user/sessions/:id': { action: 'account.session_end', answer: ['kind'] },
  // Federation (docs/federation.md): never the id_token, the code or a ticket.
  'POST /v1/dev-user/federated-login': {
    action: 'account.federated_login',
    request: pick('provider', 'client_id'),
    answer: ['created'],
    actorFromAnswer: true,
  },
  'POST /v1/dev-user/platform-login': {
    action: 'account.platform_login',
    request: pick('provider', 'client_id'),
    answer: ['created'],
    actorFromAnswer: true,
  },
  'GET /v1/federation/:id/callback': {
    action: 'account.federated_callback',
    request: (_b, p) => ({ provider: p.id }),
  },
  'POST /v1/federation/login-ticket': {
    action: 'account.login_ticket',
    answer: ['created'],
    actorFromAnswer: true,
  },
  'POST /v1/dev-user/identities': { action: 'identity.link', request: pick('provider'), answer: ['id'] },
  'POST /v1/dev-user/identities/link': { action: 'identity.link_request', request: pick('provider') },
  'DELETE /v1/dev-user/identities/:id': {
    action: 'identity.unlink',
    request: (_b, p) => ({ identity_id: p.id }),
  },
  // Reset and change: the e-mail only, never the code or a password.
  'POST /v1/dev-user/password/reset-request': {
    action: 'account.password_reset_request',
    request: pick('email'),
  },
  'POST /v1/dev-user/password/reset': { action: 'account.password_reset', request: pick('email') },
  'POST /v1/dev-user/password': { action: 'account.password_change' },
  // Never `confirm` (the e-mail): the trail keeps the deleted account's uuid only.
  'DELETE /v1/dev-user/account': { action: 'account.delete' },
  'GET /v1/dev-user/account/export': { action: 'account.export' },
  'PUT /v1/dev-user/account/locale': { action: 'account.locale', request: pick('locale') },
  'DELETE /v1/dev-user/consents/:client_id': {
    action: 'consent.revoke',
    request: (_b, p) => ({ client_id: p.client_id }),
    answer: ['revoked_grants'],
  },
  // The login page's forms (HTML answers): the account they signed in is set by the page route.
  'POST /oauth/device/login': { action: 'account.login_page', request: pick('email') },
  // Device approvals (RFC 8628): the decision and the app, never the user code.
  'POST /oauth/device/decision': { action: 'device.decision', request: pick('decision') },
  'POST /v1/device/approve': { action: 'device.approve', answer: ['client_id'] },
  'POST /v1/device/deny': { action: 'device.deny', answer: ['client_id'] },
  'POST /oauth/authorize/login': { action: 'account.login_page', request: pick('email', 'client_id') },
  // The pages' second step and enrolment (docs/mfa.md "The pages"): never the code or the mfa_token.
  'POST /oauth/authorize/mfa': { action: 'account.login_mfa_page', request: pick('client_id') },
  'POST /oauth/authorize/mfa/enrol': { action: 'mfa.totp_confirm', request: pick('client_id') },
  'POST /oauth/device/mfa': { action: 'account.login_mfa_page' },
  'POST /oauth/authorize/signup': { action: 'account.register_page', request: pick('email', 'client_id') },
  'POST /oauth/authorize/reset': {
    action: 'account.password_reset_request_page',
    request: pick('email', 'client_id'),
  },
  'POST /oauth/authorize/reset/confirm': {
    action: 'account.password_reset_page',
    request: pick('email', 'client_id'),
  },
  'POST /v1/dev-user/clients': {
    action: 'client.create',
    request: pick('name', 'redirect_uris', 'dapp'),
    answer: ['client_id'],
  },
  'PATCH /v1/dev-user/clients/:id': {
    action: 'client.update',
    request: (b, p) => ({ ...pick('name', 'redirect_uris')(b), client_id: p.id }),
  },
  'DELETE /v1/dev-user/clients/:id': { action: 'client.delete', request: (_b, p) => ({ client_id: p.id }) },
  'POST /v1/dev-user/clients/:id/rotate-secret': {
    action: 'client.rotate_secret',
    request: (_b, p) => ({ client_id: p.id }),
  },
  'POST /v1/pin/register': { action: 'pin.register', answer: ['address'], answerIn: 'data0' },
  'POST /v1/pin/verify': { action: 'pin.verify', request: callsOf, answer: CHAIN_ANSWER },
  'POST /v1/pin/reset': { action: 'pin.reset', answer: ['address'] },
  'POST /v1/pin/recover': { action: 'pin.recover', answer: ['address'] },
  // Session keys (docs/session-keys.md): what an app may do with the wallet, and what it did. The
  // player's wallet history shows these beside the PIN operations (issue 41: a session operation
  // moved tokens with no record).
  'POST /v1/wallet/session-keys': {
    action: 'session_key.grant',
    request: pick('client_id'),
    answer: ['session_key', 'valid_until', 'user_op_hash', 'tx_hash'],
  },
  'DELETE /v1/wallet/session-keys/:client_id': {
    action: 'session_key.revoke',
    request: (_b, p) => ({ client_id: p.client_id }),
    answer: ['tx_hash'],
  },
  'POST /v1/wallet/session-operations': {
    action: 'session_key.operation',
    request: callsOf,
    answer: ['user_op_hash', 'tx_hash'],
  },
  'POST /v1/auth/email/send-code': { action: 'email.send_code', request: pick('purpose') },
  'POST /v1/auth/email/verify': { action: 'email.verify', request: pick('purpose') },
  'POST /v1/token/transfer': {
    action: 'token.transfer',
    request: pick('from_address', 'to_address', 'amount', 'contract_address'),
    answer: CHAIN_ANSWER,
  },
  'POST /idex-platform/exchange_token_owner': {
    action: 'slot.transfer',
    request: pick('cu_id', 'from_uuid', 'to_uuid', 'meta_idx'),
    answer: [...CHAIN_ANSWER, 'from_address', 'to_address'],
  },
  'POST /v1/market/listings': {
    action: 'market.list',
    request: pick('user_id', 'client_id', 'price', 'meta_idx'),
  },
  'DELETE /v1/market/listings/:id': { action: 'market.cancel', request: (_b, p) => ({ listing_id: p.id }) },
  'POST /v1/market/listings/:id/purchase': {
    action: 'market.purchase',
    request: (_b, p) => ({ listing_id: p.id }),
    answer: CHAIN_ANSWER,
  },
  'POST /v1/development-api/init_permission_provider': {
    action: 'provider.register',
    request: pick('client_id', 'cuid', 'release_per', 'owner_addr'),
    answer: ['tx_hash'],
  },
  'POST /v1/development-api/payload_mode': {
    action: 'provider.payload_mode',
    request: pick('client_id', 'mode'),
  },
  'POST /v1/development-api/test_encryption': {
    action: 'provider.test_encryption',
    request: pick('client_id'),
  },
  'POST /v1/development-api/user_buy_content_token': {
    action: 'content.purchase',
    request: pick('client_id', 'cuid', 'user_dbkey', 'amount'),
    answer: CHAIN_ANSWER,
  },
  'POST /v1/development-api/release_used_balance': {
    action: 'content.release',
    request: pick('client_id', 'cuid', 'slot'),
    answer: CHAIN_ANSWER,
  },
  'POST /v1/admin/faucet': { action: 'admin.faucet', request: pick('address', 'native', 'token') },
  'POST /v1/admin/funding': {
    action: 'admin.funding',
    request: pick('paymaster_deposit', 'operator', 'relayer'),
  },
  'POST /v1/admin/transfer-tickets': {
    action: 'admin.transfer_ticket',
    request: pick('cu_id', 'from_uuid', 'to_uuid', 'meta_idx'),
  },
  'POST /v1/admin/content/release': { action: 'admin.content_release', request: pick('cuid', 'enabled') },
  'POST /v1/admin/content/pool': { action: 'admin.content_pool', request: pick('cuid', 'amount') },
  'POST /v1/admin/slots/import': {
    action: 'admin.slots_import',
    answer: ['imported', 'updated', 'unchanged', 'failed'],
  },
};

/** Every admin route is audited, including ones added later without an entry above. */
function auditedRouteOf(method: string, route: string): AuditedRoute | undefined {
  const known = AUDITED_ROUTES[`${method} ${route}`];
  if (known) return known;
  if (route.startsWith('/v1/admin/') && method !== 'GET') {
    return { action: `admin.${route.slice('/v1/admin/'.length).replace(/[^a-z0-9]+/gi, '_')}` };
  }
  return undefined;
}

/** The app a request is about: the body's `client_id`, else a `:client_id` route parameter. */
function clientIdOf(body: Fields, params: Fields): string | undefined {
  if (typeof body.client_id === 'string') return body.client_id;
  return typeof params.client_id === 'string' ? params.client_id : undefined;
}

function firstDataItem(answer: Fields): Fields {
  const first: unknown = Array.isArray(answer.data) ? answer.data[0] : undefined;
  return typeof first === 'object' && first !== null ? (first as Fields) : {};
}

function outcomeOf(status: number): AuditOutcome {
  if (status < 400) return 'success';
  return [401, 403, 423, 429].includes(status) ? 'denied' : 'failure';
}

function actorOf(
  request: FastifyRequest,
  route: string,
): { kind: AuditActorKind; user?: string; client?: string } {
  if (route.startsWith('/v1/admin/')) return { kind: 'admin' };
  const auth = request.auth;
  if (!auth) return { kind: 'anonymous' };
  // An access token acts for the user through an app; a login JWT is the user themself.
  return auth.use === 'access'
    ? { kind: 'app', user: auth.userId, ...(auth.clientId ? { client: auth.clientId } : {}) }
    : { kind: 'user', user: auth.userId };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The answer's JSON body, kept by `onSend` for the audit entry of an audited route. */
    auditAnswer?: Fields;
    /** The account a login-page form signed in (its answer is a redirect, not JSON). */
    auditUser?: string;
  }
}

/**
 * Records an audit entry after every audited route has answered. Installed on the root, so a
 * route file needs no audit code; `AUDITED_ROUTES` is the one list of what is audited. The hooks
 * are attached to the audited routes only (`onRoute`), so every other route — token validation,
 * the code exchange, consumption — pays nothing for the audit.
 */
export function installAuditRecorder(app: App, audit: AuditTrail): void {
  const keepAnswer = async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
    if (typeof payload !== 'string' || !auditedRouteOf(request.method, request.routeOptions.url ?? '')) {
      return payload;
    }
    try {
      request.auditAnswer = JSON.parse(payload, exactIntegers) as Fields;
    } catch {
      // Not JSON (an HTML page): nothing from the answer is kept.
    }
    return payload;
  };
  const recordEntry = async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url;
    const audited = route ? auditedRouteOf(request.method, route) : undefined;
    if (!route || !audited) return;
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Fields;
    const params = (request.params ?? {}) as Fields;
    const answer = request.auditAnswer ?? {};
    const actor = actorOf(request, route);
    if (audited.actorFromAnswer && typeof answer.uuid === 'string') actor.user = answer.uuid;
    if (request.auditUser && !actor.user) actor.user = request.auditUser;
    const details: Fields = { ...(audited.request?.(body, params) ?? {}) };
    const fields = audited.answerIn === 'data0' ? firstDataItem(answer) : answer;
    for (const name of audited.answer ?? []) if (fields[name] !== undefined) details[name] = fields[name];
    const errorCode = reply.statusCode >= 400 ? (answer.error ?? answer.code) : undefined;
    await audit.record({
      action: audited.action,
      outcome: outcomeOf(reply.statusCode),
      status: reply.statusCode,
      errorCode: errorCode === undefined ? undefined : String(errorCode),
      actorKind: actor.kind,
      actorUser: actor.user,
      clientId: actor.client ?? clientIdOf(body, params),
      address: request.ip,
      requestId: request.id,
      details,
    });
  };
  app.addHook('onRoute', (route) => {
    const methods = methodsOf(route);
    if (!methods.some((method) => auditedRouteOf(method, route.url))) return;
    // A route's own hooks run after the root's, as the root hooks this replaces did.
    route.onSend = [...hooksOf(route.onSend), keepAnswer] as typeof route.onSend;
    route.onResponse = [...hooksOf(route.onResponse), recordEntry] as typeof route.onResponse;
  });
}

/**
 * Keeps an integer the answer wrote as a JSON number beyond 2^53 (a 19-digit slot id) as its exact digits:
 * parsed as a number it would be rounded (4039497133709201960 → 4039497133709202000) in the trail.
 */
function exactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context?.source &&
    /^-?\d+$/.test(context.source)
  ) {
    return context.source;
  }
  return value;
}
