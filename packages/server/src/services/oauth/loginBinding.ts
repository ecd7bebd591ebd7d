import { AppError } from '../../errors.js';
import type { TokenClaims } from '../tokens/tokenService.js';
import type { ClientDirectory } from './clientDirectory.js';

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
 * The app a sign-in asks to be bound to, checked to exist before the password is: 400 with
 * `field: client_id` for an unknown app (nothing is issued). Undefined stays unbound.
 */
export async function loginBindingFor(
  clients: Pick<ClientDirectory, 'findClient'>,
  clientId: string | undefined,
): Promise<{ clientId?: string }> {
  if (clientId === undefined) return {};
  const client = await clients.findClient(clientId);
  if (!client) {
    throw new AppError(400, 'invalid_request', 'client_id is not a registered app', { field: 'client_id' });
  }
  return { clientId: client.clientId };
}
