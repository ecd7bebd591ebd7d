import type { BrowserFlow } from './upstreamProvider.js';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/**
 * The token request of an authorization-code flow with PKCE (RFC 6749 §4.1.3, RFC 7636 §4.5), with the
 * client authenticated as `method` says: HTTP Basic (RFC 6749 §2.3.1: each half form-urlencoded before the
 * Basic encoding), the credentials in the form, or only the client id (a public client).
 */
export function codeTokenRequest(
  code: string,
  flow: BrowserFlow,
  client: { id: string; secret: string | undefined; method: ClientAuthMethod },
): { body: URLSearchParams; headers: Record<string, string> } {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: flow.callbackUrl,
    code_verifier: flow.codeVerifier,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (client.method === 'client_secret_basic' && client.secret !== undefined) {
    const formEncode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
    const credentials = `${formEncode(client.id)}:${formEncode(client.secret)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  } else {
    body.set('client_id', client.id);
    if (client.method === 'client_secret_post' && client.secret) body.set('client_secret', client.secret);
  }
  return { body, headers };
}
