import type { onRequestHookHandler, RouteOptions } from 'fastify';

/** A route option's hooks as a list: Fastify takes one function, an array or nothing. */
export const hooksOf = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/**
 * From an `onRoute` hook: makes `hook` the first `onRequest` hook of this route, so it runs where a root
 * hook would (before the route's own hooks, before the body is read) but only the routes that need it
 * pay for it. A route without any `onRequest` hook skips Fastify's hook runner altogether, which a root
 * hook costs every request (docs/performance-http.md, round 10). Adding the same hook twice is a no-op:
 * Fastify builds a GET route's HEAD twin from the same options.
 */
export function runFirstOnRequest(route: RouteOptions, hook: onRequestHookHandler): void {
  const own = hooksOf(route.onRequest);
  if (own.includes(hook)) return;
  route.onRequest = [hook, ...own];
}

/** The route's methods (Fastify takes one or a list). */
export const methodsOf = (route: RouteOptions): string[] =>
  Array.isArray(route.method) ? route.method : [route.method];
