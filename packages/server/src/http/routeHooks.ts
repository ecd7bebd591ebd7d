import type { onRequestHookHandler, RouteOptions } from 'fastify';

/** A route option's hooks as a list: Fastify takes one function, an array or nothing. */
export const hooksOf = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/**
 * From an `onRoute` hook: makes `hook` the first of this route's own `onRequest` hooks, so it runs before
 * the route's hooks and before the body is read (after any hook its scope adds), and only the routes that
 * need it pay for it. A route without any `onRequest` hook skips Fastify's hook runner altogether, which a
 * root hook costs every request (docs/performance-http.md, round 10). (Fastify runs `onRoute` for a GET
 * route's HEAD twin too, on a copy of the options taken before, so each gets the hook once.)
 */
export function runFirstOnRequest(route: RouteOptions, hook: onRequestHookHandler): void {
  route.onRequest = [hook, ...hooksOf(route.onRequest)];
}

/** The route's methods (Fastify takes one or a list). */
export const methodsOf = (route: RouteOptions): string[] =>
  Array.isArray(route.method) ? route.method : [route.method];
