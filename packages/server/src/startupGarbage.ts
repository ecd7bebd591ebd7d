import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * One full garbage collection, run once when start-up is done and before the app takes requests.
 *
 * Why: V8 caps the hidden-class transitions of one map at 1,536, and every `{}` that gains a property
 * starts from the same map. Start-up adds about a thousand transitions there that are garbage once the app
 * is ready (fast-json-stringify names each schema it compiles `__fjs_root_<n>`, ajv its generated
 * functions `validate<n>`, `_errs<n>`…), so the cap is reached. Until the next mark-compact (half a minute
 * or more under load) every object that gains a property name the map has no transition for gets a hidden
 * class of its own: each request's `headers` object, each parsed JSON body. Those maps are allocated in the
 * old generation, the inline caches that read such objects go megamorphic, and young objects stored into
 * them are promoted: measured, the validate route at half the speed of the same route after one collection
 * (docs/performance-http.md, round 8). A full collection drops the dead transitions at once.
 *
 * @returns the milliseconds the collection took
 */
export function collectStartupGarbage(): number {
  const collect = fullCollection();
  const started = performance.now();
  collect();
  return performance.now() - started;
}

function fullCollection(): () => void {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as () => void;
  // V8 installs its `gc` function in contexts created while --expose-gc is set: take it from a fresh
  // context, then unset the flag so that no later context (a `vm` sandbox) has it.
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as () => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
