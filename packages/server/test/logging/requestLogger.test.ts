import type { IncomingMessage } from 'node:http';
import { channel, subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { requestLogger } from '../../src/http/requestLogger.js';
import { requestReporting } from '../../src/http/requestMetrics.js';
import { loggerOptions } from '../../src/logger.js';
import { ServiceMetrics } from '../../src/observability/metrics.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino(loggerOptions(level), stream), lines };
}

/** A promise and its resolve (Promise.withResolvers, which the ES2023 lib the code compiles against lacks). */
function settled() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** An app wired as buildApp's (requestReporting: no Fastify logger, dauth's request loggers), request ids. */
async function appWith(logger: pino.Logger, metrics = new ServiceMetrics()) {
  let n = 0;
  const reporting = requestReporting(logger, metrics);
  const app = Fastify({ logController: reporting.logController, genReqId: () => `req-${++n}` });
  reporting.install(app);
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/items/:id', async () => ({ ok: true }));
  app.get('/loud', async (request) => {
    request.log.warn({ token: 'eyJ.secret', detail: 'kept' }, 'something odd');
    request.log.info('not at warn level');
    return { ok: true };
  });
  app.get('/child', async (request) => {
    request.log.child({ step: 'inner' }).error('from a child');
    return { ok: true };
  });
  app.get('/twice', async (_request, reply) => {
    await reply.send({ first: true });
    return reply.send({ second: true });
  });
  await app.ready();
  return app;
}

/** The app listening on a loopback port: its answers are reported by Node's diagnostics channel. */
async function listening(app: Awaited<ReturnType<typeof appWith>>) {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** The request series' lines of a scrape (`dauth_http_requests_total` and the duration count). */
async function requestSeries(metrics: ServiceMetrics) {
  return (await metrics.render()).body
    .split('\n')
    .filter((l) => /^dauth_http_request(s_total|_duration_seconds_count)\{/.test(l))
    .sort();
}

describe('request.log: the request id bound only when a line is written', () => {
  it('makes no pino child for a request that logs nothing at the enabled level', async () => {
    const { logger, lines } = capture('warn');
    const app = await appWith(logger);
    const child = vi.spyOn(logger, 'child');
    for (let i = 0; i < 5; i++) expect((await app.inject({ url: '/quiet' })).statusCode).toBe(200);
    // The "incoming request" / "request completed" lines are info: below warn, not written.
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    await app.close();
  });

  it('writes exactly what a pino child would: the request id, the fields, redaction, the level filter', async () => {
    const { logger, lines } = capture('warn');
    const app = await appWith(logger);
    await app.inject({ url: '/quiet' });
    await app.inject({ url: '/loud' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      reqId: 'req-2',
      detail: 'kept',
      token: '[redacted]',
      msg: 'something odd',
    });
    expect(lines[0]).not.toHaveProperty('req');
    await app.close();
  });

  it('a child of request.log carries the request id and its own bindings', async () => {
    const { logger, lines } = capture('warn');
    const app = await appWith(logger);
    await app.inject({ url: '/child' });
    expect(lines).toEqual([
      expect.objectContaining({ reqId: 'req-1', step: 'inner', msg: 'from a child', level: 50 }),
    ]);
    await app.close();
  });

  // Fastify writes its own warnings through reply.log, which it assigns in each reply's constructor: the
  // accessor that makes it dauth's relies on that assignment (requestLogger.ts, installRequestLoggers).
  it("Fastify's own warnings go through reply.log to the app logger, with the request id", async () => {
    const { logger, lines } = capture('warn');
    const app = await appWith(logger);
    expect(JSON.parse((await app.inject({ url: '/twice' })).body)).toEqual({ first: true });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        reqId: 'req-1',
        msg: 'Reply was already sent, did you forget to "return reply" in "/twice" (GET)?',
      }),
    ]);
    await app.close();
  });

  it('follows a level change of the app logger made after the request started', () => {
    const { logger, lines } = capture('warn');
    const log = requestLogger(logger as FastifyBaseLogger, 'r');
    log.info('dropped');
    logger.level = 'info';
    log.info('written');
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([['written', 'r']]);
    expect(log.level).toBe('info');
  });
});

const REFUSED = 'request aborted - refusing to accept new requests as server is closing';

describe('request lines and request metrics, without a listener per response', () => {
  it("at info every request gets Fastify's two lines with its own id, over a real connection and by inject", async () => {
    const { logger, lines } = capture('info');
    const app = await appWith(logger);
    const url = await listening(app);
    expect((await fetch(`${url}/quiet`)).status).toBe(200);
    expect((await app.inject({ url: '/quiet' })).statusCode).toBe(200);
    expect((await fetch(`${url}/nothing/here`)).status).toBe(404);
    await app.close();
    expect(lines.filter((l) => l.msg === 'incoming request')).toEqual([
      expect.objectContaining({
        reqId: 'req-1',
        req: expect.objectContaining({ method: 'GET', url: '/quiet' }),
      }),
      expect.objectContaining({ reqId: 'req-2', req: expect.objectContaining({ url: '/quiet' }) }),
      expect.objectContaining({ reqId: 'req-3', req: expect.objectContaining({ url: '/nothing/here' }) }),
    ]);
    const completed = lines.filter((l) => l.msg === 'request completed');
    expect(completed.map((l) => [l.reqId, l.res])).toEqual([
      ['req-1', { statusCode: 200 }],
      ['req-2', { statusCode: 200 }],
      ['req-3', { statusCode: 404 }],
    ]);
    for (const line of completed) expect(line.responseTime).toBeGreaterThan(0);
  });

  it('counts every answer once by route template, status and time, over a real connection and by inject', async () => {
    const { logger } = capture('warn');
    const metrics = new ServiceMetrics();
    const app = await appWith(logger, metrics);
    const url = await listening(app);
    for (const id of ['a', 'b']) expect((await fetch(`${url}/items/${id}`)).status).toBe(200);
    expect((await app.inject({ url: '/items/c' })).statusCode).toBe(200);
    expect((await fetch(`${url}/no/route`)).status).toBe(404);
    expect(await requestSeries(metrics)).toEqual([
      'dauth_http_request_duration_seconds_count{method="GET",route="/items/:id",status="200"} 3',
      'dauth_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1',
      'dauth_http_requests_total{method="GET",route="/items/:id",status="200"} 3',
      'dauth_http_requests_total{method="GET",route="unmatched",status="404"} 1',
    ]);
    await app.close();
  });

  it("reports only its own server's answers, and stops when the app closes", async () => {
    const { logger } = capture('warn');
    const finish = channel('http.server.response.finish');
    const [one, other] = [new ServiceMetrics(), new ServiceMetrics()];
    const first = await appWith(logger, one);
    const second = await appWith(logger, other);
    const [firstUrl, secondUrl] = [await listening(first), await listening(second)];
    expect((await fetch(`${firstUrl}/quiet`)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await fetch(`${secondUrl}/quiet`)).status).toBe(200);
    expect(await requestSeries(one)).toContain(
      'dauth_http_requests_total{method="GET",route="/quiet",status="200"} 1',
    );
    expect(await requestSeries(other)).toContain(
      'dauth_http_requests_total{method="GET",route="/quiet",status="200"} 2',
    );
    await first.close();
    await second.close();
    expect(finish.hasSubscribers).toBe(false);
  });

  // Fastify answers a request that reaches it while the app closes (on a connection kept alive by an answer still
  // under way) with a 503 and logs it through the request's logger — its null logger, since dauth gives it none:
  // the log controller's override writes the line to the app's logger instead.
  it('a request that arrives while the app closes gets 503, and its line reaches the app logger', async () => {
    const { logger, lines } = capture('info');
    const reporting = requestReporting(logger, new ServiceMetrics());
    const app = Fastify({ logController: reporting.logController });
    reporting.install(app);
    const first = settled();
    const release = settled();
    app.get('/held', async () => {
      first.resolve();
      await release.promise;
      return { held: true };
    });
    // preClose runs once Fastify has marked itself closing, before the server stops taking connections.
    const closing = settled();
    app.addHook('preClose', async () => closing.resolve());
    await listening(app);
    const socket = connect((app.server.address() as AddressInfo).port, '127.0.0.1');
    let answers = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answers += chunk));
    socket.write('GET /held HTTP/1.1\r\nHost: dauth\r\nConnection: keep-alive\r\n\r\n');
    await first.promise;
    const closed = app.close();
    await closing.promise;
    // Node dispatches the second request of the connection at once (its answer queues behind the first's), and
    // Fastify refuses it in the same turn: one turn of the event loop after Node announced it, it was refused.
    const second = settled();
    const onRequestStart = (message: unknown) => {
      if ((message as { request: IncomingMessage }).request.url === '/held?second') second.resolve();
    };
    subscribe('http.server.request.start', onRequestStart);
    socket.write('GET /held?second HTTP/1.1\r\nHost: dauth\r\n\r\n');
    await second.promise;
    unsubscribe('http.server.request.start', onRequestStart);
    await new Promise(setImmediate);
    expect(lines.filter((l) => l.msg === REFUSED)).toEqual([
      expect.objectContaining({ level: 30, res: { statusCode: 503 } }),
    ]);
    release.resolve();
    await Promise.all([closed, once(socket, 'end')]);
    expect(answers).toMatch(
      /^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"held":true\}HTTP\/1\.1 503 Service Unavailable\r\n/,
    );
    expect(answers).toContain(
      '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}',
    );
  });
});
