import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { SecretBox } from '../../crypto/secretBox.js';
import type { AttemptOutcome, LeasedDelivery, WebhookStore } from '../../stores/webhookStore.js';
import type { CallbackTargetPolicy } from '../oauth/callbackTargetPolicy.js';
import { signDelivery } from './webhookSigner.js';
import {
  inSpanUnder,
  type Span,
  type SpanContext,
  SpanKind,
  withTraceHeaders,
} from '../../observability/spans.js';
import { WebhookPoster } from './webhookPost.js';

export interface WebhookDeliveryOptions {
  /** Per attempt, up to the answer's status line (decisions §8: 10 s). */
  timeoutMs: number;
  /** The first retry's delay; each next one doubles, up to `retryMaxMs`, with jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How long a delivery is retried before it is given up and its endpoint marked failing (≥ 24 h). */
  retryWindowMs: number;
  /** How often the queue is polled (a local write also wakes the worker at once). */
  intervalMs: number;
  /** Attempts in flight per process. */
  concurrency: number;
}

export interface DispatcherObserver {
  /** Each finished attempt (metrics: attempts by outcome). */
  attempt?(outcome: AttemptOutcome, delivery: LeasedDelivery, durationMs: number): void;
  /** The span context of the request that wrote the delivery's event, when this process knows it. */
  originOf?(msgId: string): SpanContext | undefined;
}

/** The sealed secrets' associated data: a sealed secret cannot be moved to another endpoint. */
export const webhookSecretAad = (endpointId: string) => `webhook-secret:${endpointId}`;

/**
 * The delivery worker of one process: leases due deliveries (replicas take disjoint ones), signs each
 * attempt with the endpoint's secret(s), vets the target against the callbacks' SSRF policy at send
 * time and connects to the vetted addresses only, and records the outcome. A non-2xx answer, a timeout
 * or a network error is retried with exponential backoff and jitter, with the same `webhook-id`, until
 * `retryWindowMs` after the event; then the delivery is `failed` and its endpoint marked failing.
 * A process killed mid-attempt leaves the lease to expire: the delivery is sent again (at least once).
 */
export class WebhookDispatcher {
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly #poster = new WebhookPoster();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #secrets = new Map<string, string>();
  readonly #leaseMs: number;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(
    private readonly store: WebhookStore,
    private readonly secretBox: SecretBox,
    private readonly targets: CallbackTargetPolicy,
    private readonly options: WebhookDeliveryOptions,
    private readonly logger: { warn(obj: object, msg: string): void },
    private readonly observer: DispatcherObserver = {},
  ) {
    // The attempt (its timeout) and the vetting before it (DNS, bounded by the same timeout here)
    // fit in the lease with room to record the outcome; a crashed holder's delivery is free after it.
    this.#leaseMs = options.timeoutMs * 2 + 5_000;
  }

  start(): void {
    this.#schedule(0);
  }

  /**
   * A delivery was just queued here, or a slot freed: look now rather than at the next poll. The nudges
   * of one moment share one claim (each reschedules the same timer, and one arriving during a claim asks
   * for another after it). Not later: a 5-ms wait here bounded a burst at 16 slots ÷ (round trip + 5 ms),
   * ~1,100 deliveries/s on PostgreSQL, and was most of a steady delivery's latency (docs/webhooks.md).
   */
  nudge(): void {
    if (this.#closed) return;
    if (this.#ticking) this.#again = true;
    else this.#schedule(0);
  }

  /** Deliveries being attempted by this process. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#ticking;
    this.#poster.close();
    await Promise.allSettled([...this.#inFlight]);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), ms);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    if (this.#closed || this.#ticking) return;
    this.#ticking = this.#claimAndSend();
    await this.#ticking;
    this.#ticking = undefined;
    if (this.#closed) return;
    const more = this.#again;
    this.#again = false;
    this.#schedule(more ? 0 : this.options.intervalMs);
  }

  async #claimAndSend(): Promise<void> {
    const room = this.options.concurrency - this.#inFlight.size;
    if (room <= 0) return;
    let leased: LeasedDelivery[];
    try {
      leased = await this.store.claim(this.holder, Date.now(), room, this.#leaseMs);
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'webhook claim failed');
      return;
    }
    for (const delivery of leased) {
      // Each attempt is a CLIENT span sending `traceparent`: in the trace of the request that wrote the
      // event when this process knows it, else a trace of its own (docs/operations.md, "Traces").
      const traced = () =>
        inSpanUnder(
          this.observer.originOf?.(delivery.msgId),
          'webhook delivery',
          {
            kind: SpanKind.CLIENT,
            attributes: {
              'http.request.method': 'POST',
              'dauth.client_id': delivery.clientId,
              'dauth.webhook.type': delivery.type,
              'dauth.webhook.msg_id': delivery.msgId,
              'dauth.webhook.attempt': delivery.attempts + 1,
            },
          },
          (span) => this.#attempt(delivery, span),
        );
      const run = traced().catch((err: unknown) =>
        this.logger.warn(
          { err: err instanceof Error ? err.message : String(err), msg_id: delivery.msgId },
          'webhook attempt failed',
        ),
      );
      this.#inFlight.add(run);
      void run.finally(() => {
        this.#inFlight.delete(run);
        // A slot was freed: more may be due (and a later event of the same order key is now free).
        this.nudge();
      });
    }
    // A full batch: there may be more due right away.
    if (leased.length === room) this.#again = true;
  }

  async #attempt(delivery: LeasedDelivery, span: Span): Promise<void> {
    const started = Date.now();
    const attempt = delivery.attempts + 1;
    let outcome: AttemptOutcome;
    let status: number | undefined;
    let error: string | undefined;
    const url = new URL(delivery.url);
    const verdict = await withTimeout(this.targets.vet(url), this.options.timeoutMs);
    if (!verdict.ok) {
      outcome = verdict.unresolved ? 'unreachable' : 'blocked';
      error = verdict.reason;
    } else {
      const headers = signDelivery(
        delivery.msgId,
        delivery.payload,
        this.#signingSecrets(delivery, started),
        new Date(),
      );
      const result = await this.#poster.post(
        url,
        delivery.payload,
        withTraceHeaders(headers),
        verdict.addresses,
        this.options.timeoutMs,
      );
      if (result.kind === 'answered') {
        status = result.status;
        outcome = status >= 200 && status < 300 ? 'delivered' : 'refused';
      } else {
        outcome = result.kind;
        error = result.error;
      }
    }
    span.setAttributes({
      'server.address': url.hostname,
      'dauth.webhook.outcome': outcome,
      ...(status !== undefined ? { 'http.response.status_code': status } : {}),
    });
    const now = Date.now();
    const durationMs = now - started;
    if (this.#closed && outcome !== 'delivered') return; // stopped mid-attempt: the lease expires, no attempt is counted
    const next =
      outcome === 'delivered'
        ? { state: 'delivered' as const, nextAttemptAt: now }
        : this.#retryOrGiveUp(delivery, attempt, now);
    await this.store.finishAttempt({
      holder: this.holder,
      endpointId: delivery.endpointId,
      msgId: delivery.msgId,
      attempt: { attempt, at: started, outcome, status, durationMs, error },
      next,
    });
    this.observer.attempt?.(outcome, delivery, durationMs);
  }

  /** Exponential backoff with jitter (half to all of the step); the last attempt is at the window's end. */
  #retryOrGiveUp(delivery: LeasedDelivery, attempt: number, now: number) {
    const deadline = delivery.createdAt + this.options.retryWindowMs;
    if (now >= deadline) return { state: 'failed' as const, nextAttemptAt: now };
    const step = Math.min(this.options.retryMaxMs, this.options.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
    const delay = Math.round(step / 2 + Math.random() * (step / 2));
    return { state: 'pending' as const, nextAttemptAt: Math.min(now + delay, deadline) };
  }

  /** The endpoint's secret, and during a rotation's grace the previous one too. */
  #signingSecrets(delivery: LeasedDelivery, now: number): string[] {
    const secrets = [this.#open(delivery.endpointId, delivery.secretSealed)];
    if (delivery.previousSecretSealed && (delivery.previousSecretExpiresAt ?? 0) > now) {
      secrets.push(this.#open(delivery.endpointId, delivery.previousSecretSealed));
    }
    return secrets;
  }

  #open(endpointId: string, sealed: string): string {
    let secret = this.#secrets.get(sealed);
    if (secret === undefined) {
      const plain = this.secretBox.open(sealed, webhookSecretAad(endpointId));
      secret = plain.toString('utf8');
      plain.fill(0);
      if (this.#secrets.size >= 1024) this.#secrets.clear();
      this.#secrets.set(sealed, secret);
    }
    return secret;
  }
}

/** A DNS answer that hangs counts as unresolved within the attempt's own limit. */
function withTimeout<T extends { ok: boolean }>(
  vetting: Promise<T>,
  ms: number,
): Promise<T | { ok: false; reason: string; unresolved: true }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ ok: false; reason: string; unresolved: true }>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: 'host did not resolve in time', unresolved: true }),
      ms,
    );
  });
  return Promise.race([vetting, late]).finally(() => clearTimeout(timer));
}
