import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '../src/index.js';

interface Vector {
  name: string;
  secrets: string[];
  now: number;
  headers: Record<string, string>;
  body: string;
  expect: { valid: boolean; type?: string; data?: Record<string, unknown> };
}

const { deliveries } = JSON.parse(
  readFileSync(new URL('../../../sdk/vectors/webhooks.json', import.meta.url), 'utf8'),
) as { deliveries: Vector[] };

describe('verifyWebhook (shared vectors signed by the standardwebhooks npm package)', () => {
  afterEach(() => vi.useRealTimers());

  for (const vector of deliveries) {
    it(vector.name, () => {
      const verify = () =>
        verifyWebhook(vector.body, vector.headers, vector.secrets, { now: () => vector.now * 1000 });
      if (vector.expect.valid) {
        const event: WebhookEvent = verify();
        expect(event).toEqual({
          id: vector.headers['webhook-id'],
          type: vector.expect.type,
          timestamp: '2025-11-24T16:00:00.000Z',
          data: vector.expect.data,
        });
      } else {
        expect(verify).toThrow(WebhookVerificationError);
      }
      // The reference verifier answers the same, secret by secret (it takes one secret).
      vi.useFakeTimers({ now: vector.now * 1000 });
      const reference = vector.secrets.some((secret) => {
        try {
          new Webhook(secret).verify(vector.body, vector.headers);
          return true;
        } catch {
          return false;
        }
      });
      expect(reference).toBe(vector.expect.valid);
    });
  }

  it('the vectors are what the npm library signs today', () => {
    for (const vector of deliveries.filter((v) => v.expect.valid && v.secrets.length === 1)) {
      const [secret] = vector.secrets;
      const offered = vector.headers['webhook-signature']!.split(' ');
      const signed = new Webhook(secret!).sign(
        vector.headers['webhook-id']!,
        new Date(Number(vector.headers['webhook-timestamp']) * 1000),
        vector.body,
      );
      expect(offered).toContain(signed);
    }
  });

  it('reads Node (lower-case, possibly array) and fetch Headers alike, and a Buffer body', () => {
    const vector = deliveries[0]!;
    const now = () => vector.now * 1000;
    const asArrays = Object.fromEntries(Object.entries(vector.headers).map(([k, v]) => [k, [v]]));
    expect(verifyWebhook(Buffer.from(vector.body), asArrays, vector.secrets, { now }).id).toBe(
      vector.headers['webhook-id'],
    );
    expect(verifyWebhook(vector.body, new Headers(vector.headers), vector.secrets[0]!, { now }).type).toBe(
      vector.expect.type,
    );
  });
});
