import { executionAsyncResource } from 'node:async_hooks';

/** One of Node's own `process.nextTick` records, held for the life of the process (see below). */
let heldTickObject: object | undefined;

/**
 * Keeps the hidden class of Node's tick objects alive for the life of the process, so that every
 * `process.nextTick` builds its record with one shared class.
 *
 * Why: `nextTick` builds each record as `{ [async_id_symbol], [trigger_async_id_symbol],
 * [async_context_frame], callback, args }`, starting from `{}`'s root map. A full collection that finds no
 * record alive frees the chain of classes those records share; the next record rebuilds it, as a shared
 * transition when the root map has room. During start-up it does not (src/startupGarbage.ts: about a
 * thousand dead transitions fill its cap of 1,536 until the start-up collection), so records built then get
 * a class each, and nextTick's inline caches, after five of them, go megamorphic for good. Measured: in 5
 * of 6 dauth processes the caches of the record's last three properties were megamorphic, `nextTick` 2.6–3.6 %
 * of the main thread under a `/healthz` load (17–22 % on a slower VM where all four went), against 0.3–0.7 %
 * in every process that held one record (docs/performance-content.md, round 11). Holding one record keeps
 * its class and, through its back pointers, the root map's transition to the chain alive.
 *
 * The record is the resource a tick's callback runs under (`executionAsyncResource()`), taken on the next
 * tick, long before start-up fills the root map. Not through an async hook: enabling one installs V8
 * promise hooks, which leave V8's promise-hook protector invalid for the life of the process.
 */
export function holdTickObjectShape(): void {
  if (heldTickObject !== undefined) return;
  process.nextTick(() => {
    heldTickObject ??= executionAsyncResource();
  });
}
