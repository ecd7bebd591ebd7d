import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/logger.js';
import { postgresAvailable } from '../helpers/environment.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { latestMailTo } from '../pin/pinHelpers.js';

/** A pino logger with the service's options (its `mixin` included) whose lines are kept as objects. */
function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino(loggerOptions(level), stream), lines };
}

/** A W3C traceparent of a trace the test made up, as a caller (a game backend, a proxy) would send. */
function traceparent(): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

const post = (url: string, body: unknown, headers: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

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

/**
 * Issue 42 (decisions §9 "Operations"): with OTEL_EXPORTER_OTLP_ENDPOINT set, each request is a SERVER span
 * continuing the caller's `traceparent`, its database statements are CLIENT spans under it (SQLite and
 * PostgreSQL, the statement's text without its values), and the log lines written inside carry its ids.
 * The receiver is a real OTLP/HTTP server decoding protobuf (the default) and JSON.
 */
const cases = [
  {
    name: 'SQLite, http/protobuf',
    postgres: false,
    protocol: 'http/protobuf',
    contentType: 'application/x-protobuf',
    system: 'sqlite',
  },
  {
    name: 'PostgreSQL, http/json',
    postgres: true,
    protocol: 'http/json',
    contentType: 'application/json',
    system: 'postgresql',
  },
] as const;

describe.each(cases.filter((c) => !c.postgres || postgresAvailable))(
  'request and database spans ($name)',
  (c) => {
    let receiver: OtlpReceiver;
    let server: TestServer;
    const { logger, lines } = capture('info');
    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      server = await startTestServer({
        postgres: c.postgres,
        logger,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: c.protocol,
          OTEL_SERVICE_NAME: 'dauth-under-test',
          OTEL_BSP_SCHEDULE_DELAY: '50',
        },
      });
    });
    afterAll(async () => {
      await server?.close();
      await receiver?.close();
    });

    it('continues the traceparent of a sign-up and a sign-in, with the statements under them and the ids in the log', async () => {
      const email = `otel-${randomBytes(5).toString('hex')}@example.com`;
      const password = 'correct horse battery';
      const signup = traceparent();
      expect(
        (
          await post(
            `${server.url}/v1/dev-user/register`,
            { email, password },
            { traceparent: signup.header },
          )
        ).status,
      ).toBe(201);
      const login = traceparent();
      const answer = await post(
        `${server.url}/v1/dev-user/login_devuser`,
        { email, password },
        { traceparent: login.header },
      );
      expect(answer.status).toBe(200);
      const { token, uuid } = (await answer.json()) as { token: string; uuid: string };
      // The sign-up's mailed code, verified under a third trace: the service logs the verification at info.
      const code = /enter the code (\d{6})/.exec(
        (await latestMailTo(server, email)).text.replace(/=\r?\n/g, ''),
      )![1]!;
      const verify = traceparent();
      const verified = await post(
        `${server.url}/v1/dev-user/verify-email`,
        { code },
        { traceparent: verify.header, authorization: `Bearer ${token}` },
      );
      expect(verified.status).toBe(200);

      const isRequest = (t: { traceId: string; spanId: string }) => (s: ReceivedSpan) =>
        s.traceId === t.traceId && s.parentSpanId === t.spanId && s.kind === 2;
      const spans = await receiver.waitFor(
        (all) =>
          [signup, login, verify].every((t) => all.some(isRequest(t))) &&
          all.some((s) => s.traceId === verify.traceId && s.kind === 3),
      );
      expect(receiver.contentTypes[0]).toContain(c.contentType);

      const signIn = spans.find(isRequest(login))!;
      expect(signIn).toMatchObject({
        name: 'POST /v1/dev-user/login_devuser',
        service: 'dauth-under-test',
        attributes: {
          'http.route': '/v1/dev-user/login_devuser',
          'http.response.status_code': 200,
          'http.request.method': 'POST',
        },
      });
      const verification = spans.find(isRequest(verify))!;
      expect(verification.attributes).toMatchObject({ 'user.id': uuid, 'http.response.status_code': 200 });

      // The sign-in's statements: CLIENT spans of this database under the request, the text without values.
      const statements = descendantsOf(spans, signIn).filter((s) => s.kind === 3);
      expect(statements.length).toBeGreaterThan(0);
      for (const s of statements) {
        expect(s.traceId).toBe(login.traceId);
        expect(s.attributes['db.system.name']).toBe(c.system);
        expect(s.attributes['db.system']).toBe(c.system);
        expect(String(s.attributes['db.query.text'])).not.toContain(email);
      }
      expect(
        statements.some(
          (s) =>
            /select/i.test(String(s.attributes['db.query.text'])) &&
            /users/.test(String(s.attributes['db.query.text'])),
        ),
      ).toBe(true);
      // No span anywhere holds the password, the e-mail or the token.
      const everything = JSON.stringify(spans);
      for (const secret of [password, email, token]) expect(everything).not.toContain(secret);

      // Fastify's closing line of each traced request carries its ids (the opening one is written before the span).
      const completed = lines.filter((l) => l.msg === 'request completed');
      expect(completed.map((l) => l.trace_id)).toEqual(
        expect.arrayContaining([signup.traceId, login.traceId, verify.traceId]),
      );
      expect(completed.find((l) => l.trace_id === login.traceId)!.span_id).toBe(signIn.spanId);
      // The line the verification logs (the first mailbox proof) carries the trace and span ids of its request (or of a span below it).
      const line = lines.find((l) => String(l.msg).startsWith('first mailbox proof'));
      expect(line).toBeDefined();
      expect(line!.trace_id).toBe(verify.traceId);
      const verifySpans = [verification, ...descendantsOf(spans, verification)].map((s) => s.spanId);
      expect(verifySpans).toContain(line!.span_id);
    });

    it('a request without traceparent starts a trace of its own; an unknown route is traced without a route', async () => {
      const res = await fetch(`${server.url}/healthz`);
      expect(res.status).toBe(200);
      const spans = await receiver.waitFor((all) => all.some((s) => s.name === 'GET /healthz'));
      const health = spans.find((s) => s.name === 'GET /healthz')!;
      expect(health.parentSpanId).toBeUndefined();
      expect(health.attributes['http.route']).toBe('/healthz');
    });
  },
);
