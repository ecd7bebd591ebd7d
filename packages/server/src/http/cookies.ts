import cookiePlugin from '@fastify/cookie';
import { parse } from 'cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Cookie header as parsed by `cookieOf`, on its first read; undefined until then. */
    parsedCookies: Record<string, string | undefined> | undefined;
  }
}

/**
 * One cookie of a request, undefined when it was not sent. Few routes read a cookie (the authorize,
 * consent, device and sign-out pages, federation, the locale of a page), so no hook parses them on every
 * request (token validations and balance reads included, docs/performance-http.md round 9): the header is
 * parsed here at the first read, by the `cookie` package `@fastify/cookie` parses with, and kept on the
 * request (`parsedCookies`, declared for every request in requestFields.ts). Works in every route's scope.
 */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return (request.parsedCookies ??= header ? parse(header) : {})[name];
}

/**
 * `reply.setCookie` and `reply.clearCookie` (`@fastify/cookie`) for the routes of this scope: app.ts
 * registers the route modules that set cookies in one scope that calls it. Not registered for the whole
 * app, because the plugin writes the cookies a reply collected in an `onSend` hook, and a hook of the root
 * runs on every answer: one `onSend` hook run was ≈ 3 % of a token validation's server CPU
 * (docs/performance-http.md, round 10).
 * Its parsing hook stays off (`cookieOf` reads cookies).
 */
export async function useCookies(scope: FastifyInstance): Promise<void> {
  await scope.register(cookiePlugin, { hook: false });
}
