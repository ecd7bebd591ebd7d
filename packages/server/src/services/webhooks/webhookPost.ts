import http from 'node:http';
import https from 'node:https';
import { pinnedLookup, type ResolvedAddress } from '../oauth/callbackTargetPolicy.js';

export type PostResult =
  | { kind: 'answered'; status: number }
  | { kind: 'timeout'; error: string }
  | { kind: 'unreachable'; error: string };

/**
 * One webhook POST: connects to the vetted `addresses` only (the callbacks' address pinning), never
 * follows a redirect, reads no more of the answer than its status, and gives up after `timeoutMs`
 * (counted from the start to the answer's headers; a receiver that hangs is a `timeout`).
 */
export class WebhookPoster {
  readonly #agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 30_000 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 30_000 }),
  };
  readonly #requests = new Set<http.ClientRequest>();

  post(
    url: URL,
    body: string,
    headers: Record<string, string>,
    addresses: ResolvedAddress[],
    timeoutMs: number,
  ): Promise<PostResult> {
    return new Promise((resolve) => {
      const secure = url.protocol === 'https:';
      const request = (secure ? https : http).request(
        url,
        {
          method: 'POST',
          agent: this.#agents[secure ? 'https:' : 'http:'],
          lookup: pinnedLookup(addresses),
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'dauth-webhooks/1',
          },
        },
        (response) => {
          clearTimeout(timer);
          this.#requests.delete(request);
          response.resume();
          resolve({ kind: 'answered', status: response.statusCode ?? 0 });
        },
      );
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#requests.add(request);
      request.once('error', (err) => {
        clearTimeout(timer);
        this.#requests.delete(request);
        resolve({ kind: timedOut ? 'timeout' : 'unreachable', error: err.message });
      });
      request.end(body);
    });
  }

  /** Aborts what is on the wire and closes the kept-alive connections. */
  close(): void {
    for (const request of this.#requests) request.destroy(new Error('webhook sender closed'));
    this.#agents['http:'].destroy();
    this.#agents['https:'].destroy();
  }
}
