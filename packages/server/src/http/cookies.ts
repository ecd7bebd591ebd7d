import type { FastifyRequest } from 'fastify';

/**
 * One cookie of a request, undefined when it was not sent. `@fastify/cookie` is registered with `hook: false`
 * (app.ts): few routes read a cookie (the authorize, consent, device and sign-out pages, federation, the
 * locale), and its parsing hook ran on every request, token validations and balance reads included
 * (docs/performance-http.md, round 9). The header is parsed at the first read and kept on the request in
 * the plugin's own `request.cookies`, which is null until then; read cookies through this, never from
 * `request.cookies` (eslint forbids it). `reply.setCookie` and `clearCookie` are the plugin's, unchanged.
 */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  return parsedCookies(request)[name];
}

function parsedCookies(request: FastifyRequest): Record<string, string | undefined> {
  // `setCookie` may also have filled it (the same parse of the same header).
  const parsed = request.cookies as FastifyRequest['cookies'] | null;
  if (parsed) return parsed;
  const header = request.headers.cookie;
  return (request.cookies = header ? request.server.parseCookie(header) : {});
}
