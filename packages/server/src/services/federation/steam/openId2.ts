import type { BrowserFlow } from '../upstreamProvider.js';

/** The OpenID 2.0 namespace (`openid.ns`, and `ns` in a direct answer). */
export const OPENID_NS = 'http://specs.openid.net/auth/2.0';

/**
 * Fields a positive assertion must sign (§10.1 requires op_endpoint, return_to, response_nonce and
 * assoc_handle, plus claimed_id and identity when present, which they always are for Steam).
 */
export const REQUIRED_SIGNED_FIELDS = [
  'op_endpoint',
  'claimed_id',
  'identity',
  'return_to',
  'response_nonce',
  'assoc_handle',
] as const;

/** The `openid.return_to` a flow sends and expects back: the callback URL carrying the flow's `state`. */
export function returnToFor(flow: BrowserFlow): string {
  const url = new URL(flow.callbackUrl);
  url.searchParams.set('state', flow.state);
  return url.toString();
}

/** §4.1.1 key-value form (`key:value\n` lines), as a direct answer is written. */
export function parseKeyValueForm(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon);
    if (!pairs.has(key)) pairs.set(key, line.slice(colon + 1).replace(/\r$/, ''));
  }
  return pairs;
}

const NONCE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})Z[\x21-\x7e]*$/;

/** The time (ms) at the head of a response nonce (`2005-05-15T17:11:51Z` + unique characters), if well formed. */
export function parseResponseNonceTime(nonce: string): number | undefined {
  const match = NONCE.exec(nonce);
  if (!match) return undefined;
  const time = Date.parse(`${match[1]}Z`);
  return Number.isNaN(time) ? undefined : time;
}
