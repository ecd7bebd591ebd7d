import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/logger.js';
import { bearer, createClient, createUser, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A pino logger at `level` whose lines are kept as objects. */
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

/**
 * Issue 31: the console asks `GET payload_mode` of every app, and an app without a content provider
 * answers 404 `provider_not_registered` — expected, and not an error of the service. The service's
 * log (the real one, captured at info) shows the request at info and nothing at warn or error.
 */
describe('an expected 404 is not logged as an error', () => {
  const { logger, lines } = capture('info');
  let server: TestServer;
  let dev: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ logger });
    dev = await createUser(server.url, 'Dev');
  });
  afterAll(() => server?.close());

  it('GET payload_mode of an app without a content provider: 404 provider_not_registered, logged at info at most', async () => {
    const app = await createClient(server.url, dev, ['http://127.0.0.1:9/cb']);
    const from = lines.length;
    const res = await fetch(`${server.url}/v1/development-api/payload_mode?client_id=${app.clientId}`, {
      headers: bearer(dev.loginToken),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false, error: 'provider_not_registered' });
    await new Promise((r) => setTimeout(r, 200));
    const mine = lines.slice(from);
    // The request is logged (Fastify's lines, info), with its status; nothing at warn or above.
    expect(mine.find((l) => l.msg === 'request completed')).toMatchObject({
      level: 30,
      res: { statusCode: 404 },
    });
    expect(mine.filter((l) => Number(l.level) >= 40)).toEqual([]);
  });
});
