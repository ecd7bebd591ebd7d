import type { FastifyRequest } from 'fastify';
import type { ClientService, OAuthClient } from '../../../services/oauth/clientService.js';
import { invalidClient, invalidRequest } from '../../../services/oauth/oauthErrors.js';

/** Body fields any client-authenticated OAuth endpoint may carry. */
export interface ClientCredentialFields {
  client_id?: string | undefined;
  client_secret?: string | undefined;
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/** `Authorization: Basic` credentials (RFC 6749 §2.3.1: form-urlencoded id and secret), if sent. */
export function basicCredentials(request: FastifyRequest): { clientId: string; secret: string } | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('Malformed HTTP Basic credentials');
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient('Malformed HTTP Basic credentials');
  }
}

/** Which client is calling: the client id of the credentials, for rate-limit keys (not verified). */
export function claimedClientId(request: FastifyRequest): string {
  try {
    const basic = basicCredentials(request);
    if (basic) return basic.clientId.slice(0, 64);
  } catch {
    return '';
  }
  const id = (request.body as ClientCredentialFields | undefined)?.client_id;
  return typeof id === 'string' ? id.slice(0, 64) : '';
}

/**
 * Authenticates the calling client by HTTP Basic or by `client_id` + `client_secret` in the body
 * (`client_secret_basic`, `client_secret_post`). Using both at once is refused (RFC 6749 §2.3).
 */
export async function authenticateClient(
  request: FastifyRequest,
  body: ClientCredentialFields,
  clients: ClientService,
): Promise<OAuthClient> {
  const { clientId, secret } = presentedCredentials(request, body);
  return clients.authenticateClient(clientId, secret);
}

/** The client id and secret the request presents (HTTP Basic or the body), not yet checked. */
export function presentedCredentials(
  request: FastifyRequest,
  body: ClientCredentialFields,
): { clientId: string; secret: string } {
  const basic = basicCredentials(request);
  if (basic) {
    if (body.client_secret !== undefined) {
      throw invalidRequest(
        'client_secret',
        'Use one client authentication method, not both Basic and client_secret',
      );
    }
    if (body.client_id !== undefined && body.client_id !== basic.clientId) {
      throw invalidClient('client_id differs from the HTTP Basic credentials');
    }
    return basic;
  }
  if (body.client_id === undefined) throw invalidRequest('client_id', 'client_id is required');
  if (body.client_secret === undefined) {
    throw invalidRequest('client_secret', 'client_secret is required (or HTTP Basic credentials)');
  }
  return { clientId: body.client_id, secret: body.client_secret };
}
