import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { fastifyLogger, requestLoggerFactory } from '../../src/http/requestLogger.js';
import { loggerOptions } from '../../src/logger.js';

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

/** An app like buildApp's: the given logger (as `fastifyLogger`), request ids, and the lazy request logger. */
async function appWith(logger: pino.Logger) {
  let n = 0;
  const app = Fastify({
    loggerInstance: fastifyLogger(logger as FastifyBaseLogger),
    genReqId: () => `req-${++n}`,
  });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/loud', async (request) => {
    request.log.warn({ token: 'eyJ.secret', detail: 'kept' }, 'something odd');
    request.log.info('not at warn level');
    return { ok: true };
  });
  app.get('/child', async (request) => {
    request.log.child({ step: 'inner' }).error('from a child');
    return { ok: true };
  });
  await app.ready();
  return app;
}

describe('request.log (requestLoggerFactory): the request id bound only when a line is written', () => {
  it('makes no pino child for a request that logs nothing at the enabled level', async () => {
    const { logger, lines } = capture('warn');
    const child = vi.spyOn(logger, 'child');
    const app = await appWith(logger);
    child.mockClear();
    for (let i = 0; i < 5; i++) expect((await app.inject({ url: '/quiet' })).statusCode).toBe(200);
    // Fastify's own "incoming request" / "request completed" lines are info: below warn, not written.
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

  it('at info level every request still gets its own id on Fastify request lines', async () => {
    const { logger, lines } = capture('info');
    const app = await appWith(logger);
    await app.inject({ url: '/quiet' });
    await app.inject({ url: '/quiet' });
    const ids = lines.filter((l) => l.msg === 'incoming request').map((l) => l.reqId);
    expect(ids).toEqual(['req-1', 'req-2']);
    expect(lines.filter((l) => l.msg === 'request completed').map((l) => l.reqId)).toEqual([
      'req-1',
      'req-2',
    ]);
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

  it('hands Fastify a logger whose per-request children are request loggers, so Fastify need not check them', async () => {
    const { logger, lines } = capture('warn');
    const app = await appWith(logger);
    // Fastify checks a request's logger only when a childLoggerFactory is set (logger-factory.js).
    expect(app.childLoggerFactory).toBe(Fastify().childLoggerFactory);
    expect(app.log.child({ reqId: 'r' }, {}).constructor.name).toBe('RequestLogger');
    // A route's own level still gets a real pino child; the app logger's lines are the logger's own.
    expect(app.log.child({ reqId: 'r' }, { level: 'error' }).constructor.name).not.toBe('RequestLogger');
    app.log.warn({ token: 'eyJ.secret' }, 'from the app');
    expect(lines).toEqual([expect.objectContaining({ level: 40, msg: 'from the app', token: '[redacted]' })]);
    await app.close();
  });

  it('follows a level change of the app logger made after the request started', () => {
    const { logger, lines } = capture('warn');
    const log = requestLoggerFactory(logger as FastifyBaseLogger, { reqId: 'r' }, {});
    log.info('dropped');
    logger.level = 'info';
    log.info('written');
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([['written', 'r']]);
    expect(log.level).toBe('info');
  });
});
