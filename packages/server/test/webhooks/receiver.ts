import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as a receiver saw it, verified by the `standardwebhooks` package (not dauth's code). */
export interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  event: { type: string; timestamp: string; data: Record<string, unknown> };
  verified: boolean;
  at: number;
  /** The W3C `traceparent` the delivery carried (tracing on: the delivery's span). */
  traceparent: string | undefined;
}

/** How a path answers: a status per call (the last repeats), or `hang` to never answer. */
export type Behaviour = { statuses?: number[]; hang?: boolean; hangFirst?: number };

/**
 * A studio's webhook receiver on loopback (node:http): verifies each delivery with the secret
 * registered for its path, records it, deduplicates by `webhook-id` (what a real receiver does), and
 * answers as told.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  readonly secrets = new Map<string, string>();
  readonly behaviours = new Map<string, Behaviour>();
  readonly #calls = new Map<string, number>();
  readonly #waiters = new Set<() => void>();
  readonly #hanging = new Set<http.ServerResponse>();
  #server: http.Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.#handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const path = req.url ?? '/';
    const headers = {
      'webhook-id': String(req.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
    };
    let verified = false;
    const secret = this.secrets.get(path);
    if (secret) {
      try {
        new Webhook(secret).verify(body, headers);
        verified = true;
      } catch {
        verified = false;
      }
    }
    this.received.push({
      path,
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body,
      event: JSON.parse(body) as Received['event'],
      verified,
      at: Date.now(),
      traceparent: typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
    });
    for (const wake of this.#waiters) wake();
    const behaviour = this.behaviours.get(path) ?? {};
    const call = this.#calls.get(path) ?? 0;
    this.#calls.set(path, call + 1);
    if (behaviour.hang || call < (behaviour.hangFirst ?? 0)) {
      this.#hanging.add(res);
      return;
    }
    const statuses = behaviour.statuses ?? [200];
    res.writeHead(verified ? (statuses[Math.min(call, statuses.length - 1)] ?? 200) : 401).end();
  }

  /** Deliveries to `path`, each `webhook-id` once (the receiver's dedup). */
  unique(path: string): Received[] {
    const seen = new Set<string>();
    return this.received.filter((r) => r.path === path && !seen.has(r.id) && seen.add(r.id));
  }

  /** Waits until `predicate` holds over what was received. */
  async waitFor(predicate: (received: Received[]) => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline) {
        throw new Error(
          `receiver: condition not met; got ${this.received.map((r) => `${r.path} ${r.event.type}`).join(', ')}`,
        );
      }
      await new Promise<void>((resolve) => {
        const wake = () => (this.#waiters.delete(wake), resolve());
        this.#waiters.add(wake);
        setTimeout(wake, 200);
      });
    }
  }

  async close(): Promise<void> {
    for (const res of this.#hanging) res.destroy();
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }
}
