import { setMaxListeners } from 'node:events';
import type { BackendCodeStore } from '../../stores/backendCodeStore.js';
import { clientCall } from '../../observability/spans.js';
import type { CallbackTargetPolicy, ResolvedAddress } from '../oauth/callbackTargetPolicy.js';
import { PinnedPoster } from '../oauth/pinnedPoster.js';

export interface CallbackDelivery {
  redirectUri: string;
  code: string;
  codeHash: string;
  state: string;
}

/** How one delivery ended: `delivered` (2xx), `refused` (any other answer) or `unreachable` (retries spent). */
export type DeliveryOutcome = 'delivered' | 'refused' | 'unreachable' | 'aborted';

export interface CallbackSenderOptions {
  /** Per attempt; 5 s by default. */
  attemptTimeoutMs?: number;
  /** Attempts in all, for network errors and 5xx only; 3 by default. */
  maxAttempts?: number;
  /** Wait before the 2nd, 3rd, … attempt; 250 ms then 1 s by default. */
  backoffMs?: number[];
  logger?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /**
   * Where callbacks may go (SSRF policy, decisions §7): checked on every attempt against the
   * addresses the host resolves to then, and the connection goes to those addresses only.
   */
  targets?: CallbackTargetPolicy;
  /** Observes each finished delivery (tests, metrics). */
  onOutcome?: (delivery: { redirectUri: string; state: string }, outcome: DeliveryOutcome) => void;
}

/**
 * Sends the backend-integration callback `POST <redirect_uri>` with JSON `{success: 1, code, state}`
 * after the authorize answer went out. Each attempt has a short timeout; network errors and 5xx
 * are retried a bounded number of times, every other answer is final (a GET-only route's 405
 * included). Redirects are not followed: the code goes to the registered URI or nowhere. A code
 * whose callback was not accepted is invalidated at once, so it can never be exchanged.
 */
export class CallbackSender {
  readonly #attemptTimeoutMs: number;
  readonly #maxAttempts: number;
  readonly #backoffMs: number[];
  readonly #logger: NonNullable<CallbackSenderOptions['logger']>;
  readonly #onOutcome: CallbackSenderOptions['onOutcome'];
  readonly #targets: CallbackTargetPolicy | undefined;
  readonly #inFlight = new Set<Promise<DeliveryOutcome>>();
  readonly #closing = new AbortController();
  /**
   * Keep-alive connections to apps' callback hosts, pinned to the vetted addresses; its `close` ends the
   * attempts on the wire (a plain client costs far less per request than `fetch`).
   */
  readonly #poster = new PinnedPoster();

  constructor(
    private readonly codes: BackendCodeStore,
    options: CallbackSenderOptions = {},
  ) {
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? 5_000;
    this.#maxAttempts = options.maxAttempts ?? 3;
    this.#backoffMs = options.backoffMs ?? [250, 1_000];
    this.#logger = options.logger ?? { info: () => undefined, warn: () => undefined };
    this.#onOutcome = options.onOutcome;
    this.#targets = options.targets;
    // Every attempt in flight listens to this one signal; there may be many.
    setMaxListeners(0, this.#closing.signal);
  }

  /** Starts a delivery in the background; the returned promise never rejects. */
  deliver(delivery: CallbackDelivery): Promise<DeliveryOutcome> {
    if (this.#closing.signal.aborted) return Promise.resolve('aborted');
    const run = this.#deliver(delivery).catch((err: unknown) => {
      this.#logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'callback delivery failed',
      );
      return 'unreachable' as const;
    });
    this.#inFlight.add(run);
    void run.then((outcome) => {
      this.#inFlight.delete(run);
      this.#onOutcome?.({ redirectUri: delivery.redirectUri, state: delivery.state }, outcome);
    });
    return run;
  }

  /** Drops a code whose callback will never be sent (the authorize caller went away first). */
  async discard(delivery: CallbackDelivery): Promise<void> {
    await this.codes.invalidate(delivery.codeHash, Date.now()).catch(() => undefined);
  }

  /** Deliveries in progress. */
  get pending(): number {
    return this.#inFlight.size;
  }

  /** Stops retrying, aborts attempts in flight and waits for them to settle. */
  async close(): Promise<void> {
    this.#closing.abort();
    const poster = this.#poster.close();
    await Promise.allSettled([...this.#inFlight]);
    await poster;
  }

  async #deliver(delivery: CallbackDelivery): Promise<DeliveryOutcome> {
    const body = JSON.stringify({ success: 1, code: delivery.code, state: delivery.state });
    let url: URL;
    try {
      url = new URL(delivery.redirectUri);
    } catch {
      return this.#fail(delivery, 'refused');
    }
    for (let attempt = 1; ; attempt++) {
      if (this.#closing.signal.aborted) return this.#fail(delivery, 'aborted');
      let status: number | undefined;
      try {
        let addresses: ResolvedAddress[] | undefined;
        if (this.#targets) {
          const verdict = await this.#targets.vet(url);
          if (!verdict.ok && !verdict.unresolved) {
            this.#logger.warn(
              { target: safeTarget(delivery.redirectUri), reason: verdict.reason },
              'callback target refused by policy',
            );
            return this.#fail(delivery, 'refused');
          }
          if (!verdict.ok) throw new Error(verdict.reason);
          addresses = verdict.addresses;
        }
        // A CLIENT span per attempt, in the trace of the authorize request, sending its `traceparent`.
        status = await clientCall(
          'backend callback',
          { method: 'POST', url: delivery.redirectUri },
          { 'dauth.callback.attempt': attempt },
          (traceHeaders) => this.#post(url, body, addresses, traceHeaders),
        );
      } catch (err) {
        if (this.#closing.signal.aborted) return this.#fail(delivery, 'aborted');
        this.#logger.warn(
          {
            target: safeTarget(delivery.redirectUri),
            attempt,
            err: err instanceof Error ? err.message : String(err),
          },
          'callback attempt failed',
        );
      }
      if (status !== undefined && status >= 200 && status < 300) return 'delivered';
      if (status !== undefined && status < 500) {
        this.#logger.info(
          { target: safeTarget(delivery.redirectUri), status },
          'callback refused; its code is invalidated',
        );
        return this.#fail(delivery, 'refused');
      }
      if (attempt >= this.#maxAttempts) return this.#fail(delivery, 'unreachable');
      await sleep(this.#backoffMs[attempt - 1] ?? this.#backoffMs.at(-1) ?? 0, this.#closing.signal);
    }
  }

  /** One POST; resolves with the answer's status (its body is discarded). Redirects are not followed. */
  async #post(
    url: URL,
    body: string,
    addresses: ResolvedAddress[] | undefined,
    traceHeaders: Record<string, string>,
  ): Promise<number> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new Error(`unsupported scheme ${url.protocol}`);
    // Closed while this attempt was being vetted: `close` has already ended what was on the wire.
    if (this.#closing.signal.aborted) throw new Error('callback sender closed');
    const answer = await this.#poster.post(url, body, {
      headers: { ...traceHeaders, 'content-type': 'application/json', accept: 'application/json' },
      addresses,
      timeoutMs: this.#attemptTimeoutMs,
    });
    if (answer.kind === 'timeout' || answer.kind === 'unreachable') throw new Error(answer.error);
    return answer.status;
  }

  async #fail(delivery: CallbackDelivery, outcome: DeliveryOutcome): Promise<DeliveryOutcome> {
    await this.codes.invalidate(delivery.codeHash, Date.now()).catch(() => undefined);
    return outcome;
  }
}

/** The callback target without query or credentials, for logs. */
function safeTarget(uri: string): string {
  try {
    const url = new URL(uri);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
