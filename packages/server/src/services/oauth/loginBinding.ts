import { AppError } from '../../errors.js';
import type { TokenClaims } from '../tokens/tokenService.js';

/**
 * Login binding (decisions §8, docs/security.md "Login binding"): a login JWT made for one app
 * (`azp`) opens only that app at the authorize endpoints, so an app backend that is handed a
 * user's login JWT cannot relay it to sign the user in to another app.
 */

/** 401 `client_mismatch`: a bound login JWT presented for an app other than its own. */
export const loginClientMismatch = () =>
  new AppError(
    401,
    'client_mismatch',
    'This login token was issued for another app; sign in again for this client_id',
  );

/** Refuses a bound login JWT (`azp`) for any client but its own; an unbound token passes. */
export function requireLoginBoundTo(claims: TokenClaims, clientId: string): void {
  if (claims.azp !== undefined && claims.azp !== clientId) throw loginClientMismatch();
}

/**
 * The binding of the service's own tools, the console (`packages/console`) and the CLI: first-party,
 * no OAuth client. Their login JWTs manage the account and open no app: every authorize refuses them
 * with 401 `client_mismatch`. No registered app can have this id (apps get 32 hex digits).
 */
export const FIRST_PARTY_BINDING = 'dauth:console';

/**
 * The app a sign-in asks to be bound to, checked to exist before the password is: 400 with
 * `field: client_id` for an unknown app (nothing is issued). Undefined stays unbound;
 * `FIRST_PARTY_BINDING` binds to the console and the CLI.
 */
export async function loginBindingFor(
  clients: { findClient(clientId: string): Promise<{ clientId: string } | undefined> },
  clientId: string | undefined,
): Promise<{ clientId?: string }> {
  if (clientId === undefined) return {};
  if (clientId === FIRST_PARTY_BINDING) return { clientId };
  const client = await clients.findClient(clientId);
  if (!client) {
    throw new AppError(400, 'invalid_request', 'client_id is not a registered app', { field: 'client_id' });
  }
  return { clientId: client.clientId };
}

/** LOGIN_BINDING: `spec` (default) or `strict` (README, docs/security.md). */
export type LoginBindingMode = 'spec' | 'strict';

/**
 * Whether a bearer login JWT may authorize `clientId` without a page (decisions §8):
 * - bound to another app → 401 `client_mismatch` (thrown);
 * - bound to this app → yes;
 * - unbound: an OpenID Connect request (`scope` with `openid`) — and, with `LOGIN_BINDING=strict`,
 *   every request — only when the user's consent to this app for these scopes is on record; a plain
 *   OAuth or backend-flow request under `spec` → yes (the interface's flow).
 * No means `consent_required` and never a code: a relayed JWT cannot sign the user in to an app
 * they never chose.
 */
export async function bearerMayAuthorize(input: {
  claims: TokenClaims;
  clientId: string;
  /** The request's granted OpenID scope; undefined for plain OAuth 2.0 and the backend flow. */
  scope: string | undefined;
  mode: LoginBindingMode;
  /** Whether the user's consent to the app covers `scope` (asked only when it decides). */
  consented: () => Promise<boolean>;
}): Promise<boolean> {
  requireLoginBoundTo(input.claims, input.clientId);
  if (input.claims.azp === input.clientId) return true;
  if (input.scope === undefined && input.mode === 'spec') return true;
  return input.consented();
}

/** The backend flow's refusal of an unbound JWT without consent (`LOGIN_BINDING=strict`). */
export const backendConsentRequired = () =>
  new AppError(
    403,
    'consent_required',
    'consent_required: the user has not approved this app; sign the user in with this client_id',
  );
