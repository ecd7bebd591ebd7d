import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/logger.js';
import { slotInfoFor, startCallbackServer, type CallbackServer } from '../backend/support.js';
import {
  buy,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  payloadOf,
} from '../content/contentSupport.js';
import { bearer, createClient, createUser, post } from '../helpers/http.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../webhooks/receiver.js';

const SERVER = 2;
const CLIENT = 3;

/** The spans under `root` (its descendants), by parent links. */
function descendantsOf(spans: ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] {
  const ids = new Set([root.spanId]);
  const out: ReceivedSpan[] = [];
  for (let grew = true; grew;) {
    grew = false;
    for (const s of spans) {
      if (s.parentSpanId && ids.has(s.parentSpanId) && !ids.has(s.spanId)) {
        ids.add(s.spanId);
        out.push(s);
        grew = true;
      }
    }
  }
  return out;
}

/** `00-<trace>-<span>-<flags>` split, or undefined. */
function parseTraceparent(header: string | undefined) {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header ?? '');
  return m ? { traceId: m[1]!, spanId: m[2]! } : undefined;
}

/**
 * Issue 42's journey (decisions §9 "Operations"): a caller's `traceparent` on every request of a player's
 * and a studio's day (sign-in, a PIN operation that buys content tokens on chain, the backend-integration
 * flow with its callback, a consumption batched on chain, the purchase's webhook) puts all of it in that one
 * trace, received by a real OTLP/HTTP receiver (protobuf): each request a SERVER span under the caller's
 * span, its database statements, PBKDF2 derivation, chain RPC calls and user operation (with
 * `user_op_hash`, `tx_hash`, block) below it; the callback and the webhook as CLIENT spans whose
 * `traceparent` the receivers got; the bundle and the consumption batch as traces of their own linked to
 * the requests that fed them; and the log lines written inside carry the trace's ids.
 */
describe('one trace from a caller through the service, the database, the bundler and the chain', () => {
  let otlp: OtlpReceiver;
  let server: TestServer;
  let callbacks: CallbackServer;
  let webhooks: WebhookReceiver;
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    loggerOptions('info'),
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  );
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    callbacks = await startCallbackServer();
    webhooks = new WebhookReceiver();
    await webhooks.start();
    server = await startTestServer({
      logger,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        WEBHOOK_WORKER_INTERVAL_MS: '25',
      },
    });
    // Every request the journey's helpers make to dauth carries the caller's traceparent (as a game
    // backend or a proxy would send it); requests elsewhere (the chain, the receivers) are left alone.
    globalThis.fetch = (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.startsWith(server.url)) return realFetch(input, init);
      const headers = new Headers(init?.headers);
      headers.set('traceparent', `00-${traceId}-${callerSpan}-01`);
      return realFetch(input, { ...init, headers });
    };
  });
  afterAll(async () => {
    globalThis.fetch = realFetch;
    await server?.close();
    await Promise.all([otlp?.close(), callbacks?.close(), webhooks?.close()]);
  });

  it('sign-in, PIN purchase, backend flow with its callback, consumption and webhook: one trace', async () => {
    // A studio: its app with a content provider, a webhook endpoint and a backend callback target.
    const provider = await newProvider(server, 40);
    const hook = await post(
      `${server.url}/v1/dev-user/clients/${provider.clientId}/webhooks`,
      { url: `${webhooks.url}/content`, events: ['content.purchased'] },
      bearer(provider.developer.token),
    );
    expect(hook.status).toBe(201);
    webhooks.secrets.set('/content', ((await hook.json()) as { secret: string }).secret);

    // The player: sign-up and sign-in, a PIN wallet, a purchase made with the PIN (a user operation).
    const player = await newPlayer(server, provider, '5');
    const bought = await buy(server, provider, player, '0.5');
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const used = await consume(server, {
      encrypted_message: encryptPayload(provider, payloadOf(provider, player, 7n)),
    });
    expect(used.status, JSON.stringify(used.body)).toBe(200);

    // The backend-integration flow of another app, with its callback to the studio's backend.
    const developer = await createUser(server.url);
    const app = await createClient(server.url, developer, [callbacks.url()]);
    const gamer = await createUser(server.url);
    await post(`${server.url}/v1/pin/register`, pinBody(gamer.uuid), bearer(gamer.loginToken));
    const flow = await slotInfoFor(server, callbacks, gamer, app, callbacks.url());
    expect(flow.token.body.code, flow.token.text).toBe(1);

    await webhooks.waitFor((got) => got.some((r) => r.event.type === 'content.purchased'));
    const spans = await otlp.waitFor(
      (all) =>
        all.some((s) => s.name === 'webhook delivery' && s.traceId === traceId) &&
        all.some((s) => s.name === 'backend callback' && s.traceId === traceId) &&
        all.some((s) => s.name === 'consumption batch') &&
        all.some((s) => s.name === 'bundle' && s.attributes.tx_hash === bought.body.tx_hash),
      30_000,
    );

    // Every request is a SERVER span of the caller's trace, directly under the caller's span.
    const requests = spans.filter((s) => s.kind === SERVER && s.traceId === traceId);
    const route = (r: string) => requests.find((s) => s.attributes['http.route'] === r);
    for (const r of [
      '/v1/dev-user/register',
      '/v1/dev-user/login_devuser',
      '/v1/pin/register',
      '/v1/development-api/user_buy_content_token',
      '/v1/development-api/increase_used_content_token',
      '/v1/oauth-meta/authorize',
    ]) {
      expect(route(r), `${r} in ${requests.map((s) => s.name).join(', ')}`).toBeDefined();
      expect(route(r)!.parentSpanId).toBe(callerSpan);
    }
    expect(spans.filter((s) => s.kind === SERVER && s.traceId !== traceId)).toEqual([]);

    // The purchase: PIN derivation, database statements, chain RPC calls and the user operation under it.
    const purchase = route('/v1/development-api/user_buy_content_token')!;
    expect(purchase.attributes).toMatchObject({
      'user.id': String(player.user.uuid),
      'http.response.status_code': 200,
    });
    expect(purchase.attributes['dauth.client_id']).toBe(provider.clientId);
    const below = descendantsOf(spans, purchase);
    expect(below.every((s) => s.traceId === traceId)).toBe(true);
    expect(below.some((s) => s.name === 'pbkdf2')).toBe(true);
    expect(below.some((s) => s.kind === CLIENT && s.attributes['db.system.name'] === 'sqlite')).toBe(true);
    expect(below.some((s) => s.kind === CLIENT && s.attributes['rpc.system'] === 'jsonrpc')).toBe(true);
    const operation = below.find(
      (s) => s.name === 'user_operation' && s.attributes.tx_hash === bought.body.tx_hash,
    );
    expect(operation, below.map((s) => s.name).join(', ')).toBeDefined();
    expect(operation!.attributes.user_op_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(operation!.attributes.block_number).toBeGreaterThan(0);

    // The bundle that carried it: a trace of its own, linked to the user operation, sending under it.
    const bundle = spans.find((s) => s.name === 'bundle' && s.attributes.tx_hash === bought.body.tx_hash)!;
    expect(bundle.traceId).not.toBe(traceId);
    expect(bundle.links).toContainEqual({ traceId, spanId: operation!.spanId });
    expect(bundle.attributes.user_op_hashes).toContain(operation!.attributes.user_op_hash);
    expect(bundle.attributes.block_number).toBe(operation!.attributes.block_number);
    expect(
      descendantsOf(spans, bundle).some((s) => s.attributes['rpc.method'] === 'eth_sendRawTransaction'),
    ).toBe(true);

    // The consumption's batch: its own trace, linked to the consumption request.
    const consumption = route('/v1/development-api/increase_used_content_token')!;
    const batch = spans.find(
      (s) => s.name === 'consumption batch' && s.links.some((l) => l.spanId === consumption.spanId),
    )!;
    expect(batch).toBeDefined();
    expect(batch.traceId).not.toBe(traceId);

    // The backend callback: a CLIENT span under the authorize request; the studio's backend got its traceparent.
    const authorize = route('/v1/oauth-meta/authorize')!;
    const callback = descendantsOf(spans, authorize).find((s) => s.name === 'backend callback')!;
    expect(callback.kind).toBe(CLIENT);
    const sent = callbacks.requests.filter((r) => r.method === 'POST');
    expect(sent.map((r) => parseTraceparent(r.traceparent))).toContainEqual({
      traceId,
      spanId: callback.spanId,
    });

    // The webhook: a CLIENT span of the purchase's trace; the receiver got its traceparent.
    const delivery = spans.find((s) => s.name === 'webhook delivery' && s.traceId === traceId)!;
    expect(delivery).toMatchObject({
      kind: CLIENT,
      attributes: { 'dauth.webhook.type': 'content.purchased', 'http.response.status_code': 200 },
    });
    expect([purchase, ...below].map((s) => s.spanId)).toContain(delivery.parentSpanId);
    const hooked = webhooks.received.find((r) => r.event.type === 'content.purchased')!;
    expect(parseTraceparent(hooked.traceparent)).toEqual({ traceId, spanId: delivery.spanId });

    // The service's log lines inside the trace carry its ids: the purchase's own line among them.
    const purchaseLine = lines.find((l) => l.trace_id === traceId && l.msg === 'content tokens bought');
    expect(purchaseLine, JSON.stringify(lines.filter((l) => l.trace_id).map((l) => l.msg))).toBeDefined();
    expect([purchase, ...below].map((s) => s.spanId)).toContain(purchaseLine!.span_id);
    // Never a secret in any span.
    const everything = JSON.stringify(spans);
    for (const secret of [
      player.pin.pin_hash,
      player.pin.key_share_user,
      provider.clientSecret,
      gamer.password,
    ]) {
      expect(everything).not.toContain(secret);
    }
  });
});

function pinBody(uuid: string) {
  const salt = randomBytes(32).toString('hex');
  return { user_uuid: Number(uuid), pin_hash: randomBytes(32).toString('hex'), pin_salt: salt };
}
