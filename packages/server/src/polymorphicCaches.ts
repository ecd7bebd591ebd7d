import v8 from 'node:v8';

/**
 * How many hidden classes one of V8's inline caches keeps before it turns megamorphic (V8's default: 4).
 *
 * Why: Node's socket, stream, event and HTTP code is shared by everything a process does, and dauth's
 * process also speaks to the chain, to app backends and (embedded) to its anvil's pipes: those functions meet
 * sockets, parsers, requests and responses of more than four hidden classes, and past four a property access
 * goes through V8's megamorphic stub cache (a global hash table, with misses into the runtime) for the life of
 * the process. That was about 16,000 of the 20,400 instructions dauth's `/healthz` spends over a bare Fastify
 * route (docs/performance-content.md, round 13). A cache that keeps up to this many classes checks them in
 * turn instead, and optimised code inlines the checks (docs/performance-http.md, round 11).
 */
export const POLYMORPHIC_CACHE_CLASSES = 32;

/**
 * Raises V8's bound once, before the server's code runs its first requests: V8 reads it when a cache meets a
 * class it has not seen, so it governs every cache that is still polymorphic when this runs.
 */
export function widenPolymorphicCaches(): void {
  v8.setFlagsFromString(`--max-valid-polymorphic-map-count=${POLYMORPHIC_CACHE_CLASSES}`);
}
