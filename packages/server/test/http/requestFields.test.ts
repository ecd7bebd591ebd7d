import Fastify, { type FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declareRequestFields } from '../../src/http/requestFields.js';
import type { TokenClaims } from '../../src/services/tokens/tokenService.js';

/**
 * The request fields hooks set (auth, audit, tracing, cookies) are accessors on the root's Request prototype,
 * not fields Fastify copies onto every request (docs/performance-http.md, round 15): a request that sets none
 * carries none of them, one that does keeps them in one holder, and every scope sees the same fields.
 */
describe('declareRequestFields', () => {
  const app = Fastify();
  const seen: Record<string, { ownKeys: (string | symbol)[]; values: unknown[] }> = {};
  const record = (name: string, request: FastifyRequest) => {
    seen[name] = {
      ownKeys: Reflect.ownKeys(request).filter((key) => typeof key === 'symbol' || !key.startsWith('_')),
      values: [request.auth, request.auditUser, request.auditAnswer, request.tracing, request.parsedCookies],
    };
  };
  const claims = { sub: 'user-1' } as unknown as TokenClaims;

  beforeAll(async () => {
    declareRequestFields(app);
    app.get('/none', (request, reply) => {
      record('none', request);
      void reply.send({ ok: true });
    });
    app.get(
      '/set',
      {
        preHandler: (request, _reply, done) => {
          request.auth = claims;
          request.auditUser = 'user-1';
          done();
        },
      },
      (request, reply) => {
        request.parsedCookies ??= { a: '1' };
        record('set', request);
        void reply.send({ ok: true });
      },
    );
    // A child scope (as the cookie pages' and the admin routes' are) inherits the accessors.
    await app.register(async (scope) => {
      scope.decorateRequest('scoped', null);
      scope.get('/scoped', (request, reply) => {
        request.auditAnswer = { answered: true };
        record('scoped', request);
        void reply.send({ ok: true });
      });
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('a request that sets no field carries none of them, not even undefined ones', async () => {
    await app.inject({ url: '/none' });
    expect(seen.none!.values).toEqual([undefined, undefined, undefined, undefined, undefined]);
    for (const field of ['auth', 'auditUser', 'auditAnswer', 'tracing', 'parsedCookies'])
      expect(seen.none!.ownKeys).not.toContain(field);
    expect(seen.none!.ownKeys.filter((key) => String(key) === 'Symbol(dauth.requestFields)')).toEqual([]);
  });

  it('fields set in a hook and in the handler read back, in one holder per request', async () => {
    await app.inject({ url: '/set' });
    expect(seen.set!.values).toEqual([claims, 'user-1', undefined, undefined, { a: '1' }]);
    const holders = seen.set!.ownKeys.filter((key) => String(key) === 'Symbol(dauth.requestFields)');
    expect(holders).toHaveLength(1);
    for (const field of ['auth', 'auditUser', 'parsedCookies'])
      expect(seen.set!.ownKeys).not.toContain(field);
  });

  it('a child scope sees the same fields, and the next request starts empty', async () => {
    await app.inject({ url: '/scoped' });
    expect(seen.scoped!.values).toEqual([undefined, undefined, { answered: true }, undefined, undefined]);
    await app.inject({ url: '/none' });
    expect(seen.none!.values).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});
