import cookie from '@fastify/cookie';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieOf } from '../../src/http/cookies.js';

// The cookie plugin runs as app.ts registers it (no parsing hook): cookies are parsed at the first cookieOf.
describe('cookieOf', () => {
  const app = Fastify();
  const seen: unknown[] = [];
  beforeAll(async () => {
    await app.register(cookie, { hook: false });
    app.get('/read', (request, reply) => {
      seen.push(request.cookies);
      const first = cookieOf(request, 'a');
      const parsed = request.cookies;
      void reply.send({
        a: first,
        b: cookieOf(request, 'b'),
        missing: cookieOf(request, 'c') ?? null,
        same: parsed === request.cookies,
      });
    });
    app.get('/read-then-set', (request, reply) => {
      const before = cookieOf(request, 'a');
      void reply.setCookie('a', 'new', { path: '/' });
      void reply.send({ before, after: cookieOf(request, 'a') });
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('parses the header at the first read, once, and answers undefined for a cookie not sent', async () => {
    const res = await app.inject({ url: '/read', headers: { cookie: 'a=1; b=two%20words' } });
    expect(res.json()).toEqual({ a: '1', b: 'two words', missing: null, same: true });
    // Nothing parsed it before the handler asked.
    expect(seen.at(-1)).toBeNull();
  });

  it('reads nothing from a request without a Cookie header', async () => {
    const res = await app.inject({ url: '/read' });
    expect(res.json()).toEqual({ missing: null, same: true });
  });

  it("keeps the request's cookies when the reply sets one, and the reply carries it", async () => {
    const res = await app.inject({ url: '/read-then-set', headers: { cookie: 'a=old' } });
    expect(res.json()).toEqual({ before: 'old', after: 'old' });
    expect(res.headers['set-cookie']).toMatch(/^a=new; Path=\/; SameSite=Lax$/);
  });
});
