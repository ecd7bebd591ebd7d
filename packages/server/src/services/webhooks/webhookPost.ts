import type { ResolvedAddress } from '../oauth/callbackTargetPolicy.js';
import { PinnedPoster } from '../oauth/pinnedPoster.js';

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
  readonly #poster = new PinnedPoster();

  async post(
    url: URL,
    body: string,
    headers: Record<string, string>,
    addresses: ResolvedAddress[],
    timeoutMs: number,
  ): Promise<PostResult> {
    const answer = await this.#poster.post(url, body, {
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'dauth-webhooks/1' },
      addresses,
      timeoutMs,
    });
    // `too_large` only when a body was asked for; a status is all a delivery reads.
    return answer.kind === 'too_large' ? { kind: 'answered', status: answer.status } : answer;
  }

  /** Aborts what is on the wire and closes the kept-alive connections. */
  close(): void {
    void this.#poster.close();
  }
}
