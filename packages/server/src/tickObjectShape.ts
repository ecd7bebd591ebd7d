import { executionAsyncResource } from 'node:async_hooks';

/** One of Node's own `process.nextTick` records, held for the life of the process (see below). */
let heldTickObject: object | undefined;

/**
 * Keeps the hidden class of Node's tick objects alive for the life of the process, so that every
 * `process.nextTick` builds its record with one shared class and nextTick's inline caches stay monomorphic.
 *
 * Why: `nextTick` builds each record as `{ [async_id_symbol], [trigger_async_id_symbol],
 * [async_context_frame], callback, args }` from `{}`'s root map. Records live only until their tick has run,
 * so a full collection (V8 runs them when a process goes quiet, as well as under load) that finds none
 * alive frees the chain of classes they share, and the next record builds a new one. Each new chain is one
 * more map for the caches that define the record's properties: after a handful of such collections they are
 * megamorphic, for good (V8 never returns a cache from megamorphic), and every tick builds its record through
 * the generic path. While start-up holds V8's root map at its transition cap (src/startupGarbage.ts) it is
 * worse: each record then gets a class of its own. Measured: a `/healthz` load on dauth processes, `nextTick`
 * 2.6–3.6 % of the main thread in 5 of 6 (three caches megamorphic; 17–22 % on a slower VM, with all four)
 * against 0.3–0.7 % in every process holding one record (docs/performance-content.md, round 11). A held
 * record keeps its class, and through the class's back pointers the whole chain and the root map's
 * transition to it. `bench/tickRecordCaches.mjs` shows the behaviour without dauth; rerun it on a new Node.
 *
 * The record is the resource a tick's callback runs under (`executionAsyncResource()`), taken on the next
 * tick, long before start-up fills the root map (it holds a no-op callback and the async context current
 * when the server starts: none from `main.ts`). Not through an async hook: enabling one installs V8
 * promise hooks, which leave V8's promise-hook protector invalid for the life of the process.
 */
export function holdTickObjectShape(): void {
  if (heldTickObject !== undefined) return;
  process.nextTick(() => {
    heldTickObject ??= executionAsyncResource();
  });
}
