import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieOf, useCookies } from '../../src/http/cookies.js';

// As app.ts builds it: cookies parsed at the first cookieOf, in any scope; the cookie plugin (setCookie and
// its onSend writer) only in the scopes that set cookies.
describe('cookieOf and useCookies', () => {
  const app = Fastify();
  const seen: unknown[] = [];
  beforeAll(async () => {
    app.decorateRequest('parsedCookies', undefined);
    app.get('/read', (request, reply) => {
      seen.push(request.parsedCookies);
      void reply.send({
        a: cookieOf(request, 'a'),
        b: cookieOf(request, 'b'),
        missing: cookieOf(request, 'c') ?? null,
      });
    });
    await app.register(async (scope) => {
      await useCookies(scope);
      scope.get('/read-then-set', (request, reply) => {
        const before = cookieOf(request, 'a');
        void reply.setCookie('a', 'new', { path: '/' }).setCookie('b', '2', { path: '/', httpOnly: true });
        void reply.send({ before, after: cookieOf(request, 'a') });
      });
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('parses the header at the first read, once, and answers undefined for a cookie not sent', async () => {
    const res = await app.inject({ url: '/read', headers: { cookie: 'a=1; b=two%20words' } });
    expect(res.json()).toEqual({ a: '1', b: 'two words', missing: null });
    // Nothing parsed it before the handler asked.
    expect(seen.at(-1)).toBeUndefined();
  });

  it('reads nothing from a request without a Cookie header', async () => {
    const res = await app.inject({ url: '/read' });
    expect(res.json()).toEqual({ missing: null });
  });

  it("keeps the request's cookies when the reply sets some, and the reply carries them", async () => {
    const res = await app.inject({ url: '/read-then-set', headers: { cookie: 'a=old' } });
    expect(res.json()).toEqual({ before: 'old', after: 'old' });
    expect(res.headers['set-cookie']).toEqual([
      'a=new; Path=/; SameSite=Lax',
      'b=2; Path=/; HttpOnly; SameSite=Lax',
    ]);
  });

  it('gives no onSend hook to a scope without useCookies', () => {
    const table = app.printRoutes({ includeHooks: true, commonPrefix: false });
    const readLine = table.split('\n').findIndex((line) => line.includes('/read (GET)'));
    expect(table.split('\n')[readLine + 1]).not.toMatch(/onSend/);
    expect(table).toMatch(/fastifyCookieOnSendHandler/);
  });
});
