/**
 * Run by hiddenClasses.test.ts as `node --allow-natives-syntax --import tsx hiddenClassesChild.ts <dataDir>`:
 * starts the real server, sends it two requests, and prints (as JSON) whether their `headers` objects share
 * one hidden class, how many more transitions V8's root object map takes, and whether `process.nextTick`'s
 * records still share one hidden class when a full collection and a full root map come together; then V8's
 * feedback of `process.nextTick` after idle collections, and the hidden classes of requests under
 * `declareRequestFields`.
 */
import { createHook } from 'node:async_hooks';
import Fastify, { type FastifyRequest } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { collectStartupGarbage } from '../../src/startupGarbage.js';
import { declareRequestFields } from '../../src/http/requestFields.js';

// V8's test intrinsic, reachable with --allow-natives-syntax (a `%` call does not parse as TypeScript).
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** How many `{}` objects gaining a property name never seen before still get a shared map, up to `max`. */
function rootMapRoom(max: number): number {
  const kept: object[] = [];
  for (let i = 0; i < max; i++) {
    const key = `hidden_class_probe_${i}`;
    const first: Record<string, number> = {};
    first[key] = 1;
    const second: Record<string, number> = {};
    second[key] = 1;
    if (!sameMap(first, second)) return i;
    kept.push(first);
  }
  return max;
}

/** `count` of Node's own `process.nextTick` records, seen through a momentary async hook. */
function tickObjects(count: number): object[] {
  const seen: object[] = [];
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource: object) {
      if (type === 'TickObject') seen.push(resource);
    },
  }).enable();
  for (let i = 0; i < count; i++) process.nextTick(() => {});
  hook.disable();
  return seen;
}

/**
 * Full collections that free the hidden classes of objects no longer alive: two, since V8 keeps a map
 * through one more collection after its last use (`--retain-maps-for-n-gc=2`).
 */
function collectUnusedMaps(): void {
  collectStartupGarbage();
  collectStartupGarbage();
}

/**
 * Start-up's conditions, recreated on the running server: full collections while no tick record is queued
 * (they free the records' hidden classes unless a record is held), then the root map filled to its cap,
 * then records built.
 */
async function tickObjectsShareMapWithRootMapFull(): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  collectUnusedMaps();
  const filler: object[] = [];
  for (let i = 0; i < 1_600; i++) {
    const object: Record<string, number> = {};
    object[`root_map_filler_${i}`] = i;
    filler.push(object);
  }
  const [first, second, third] = tickObjects(3) as [object, object, object];
  const shared = sameMap(first, second) && sameMap(second, third);
  // The fillers' transitions must stay on the root map until the records are built.
  filler.length = 0;
  return shared;
}

/**
 * A server that idles: rounds of a few ticks, then full collections while none is queued. Each collection
 * frees the records' hidden classes unless a record is held, and each rebuilt chain is one more map for
 * nextTick's inline caches. Prints V8's view of nextTick's feedback (`%DebugPrint`, to stdout) for the test.
 */
async function idleCollectionsThenPrintNextTickFeedback(): Promise<void> {
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < 20; i++) process.nextTick(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    collectUnusedMaps();
  }
  debugPrint(process.nextTick);
}

const debugPrint = new Function('value', '%DebugPrint(value)') as (value: unknown) => void;

/**
 * A property load that meets objects of ten hidden classes, then V8's view of its one cache (`%DebugPrint`, to
 * stdout, the first one printed): polymorphic under the server's bound (src/polymorphicCaches.ts), megamorphic
 * under V8's default of four.
 */
function printLoadCacheAfterTenClasses(): void {
  const readA = new Function('o', 'return o.a') as (o: { a: number }) => number;
  const objects = Array.from({ length: 10 }, (_, i) => ({ a: i, [`shape_${i}`]: i }));
  for (let round = 0; round < 3; round++) for (const object of objects) readA(object);
  debugPrint(readA);
}

/**
 * Requests of one scope under `declareRequestFields` (src/http/requestFields.ts): two that set fields in
 * different orders share one hidden class, and one that set none shares the class of a fresh request.
 */
async function requestFieldsClasses(): Promise<{ setInEitherOrder: boolean; noneSet: boolean }> {
  const app = Fastify();
  declareRequestFields(app);
  const seen = new Map<string, FastifyRequest>();
  app.get('/auth-then-audit', (request, reply) => {
    request.auth = undefined;
    request.auditUser = 'a';
    seen.set('first', request);
    void reply.send('ok');
  });
  app.get('/cookies-then-auth', (request, reply) => {
    request.parsedCookies = {};
    request.auth = undefined;
    seen.set('second', request);
    void reply.send('ok');
  });
  app.get('/none', (request, reply) => {
    seen.set(seen.has('none') ? 'none again' : 'none', request);
    void reply.send('ok');
  });
  for (const url of ['/auth-then-audit', '/cookies-then-auth', '/none', '/none']) await app.inject({ url });
  await app.close();
  return {
    setInEitherOrder: sameMap(seen.get('first')!, seen.get('second')!),
    noneSet:
      sameMap(seen.get('none')!, seen.get('none again')!) && !sameMap(seen.get('none')!, seen.get('first')!),
  };
}

const dataDir = process.argv[2]!;
const config = loadConfig({
  HOST: '127.0.0.1',
  PORT: '0',
  PUBLIC_URL: 'http://127.0.0.1:1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
});
const server = await startServer(config);
try {
  const headers: object[] = [];
  server.app.server.on('request', (request: { headers: object }) => headers.push(request.headers));
  for (let i = 0; i < 2; i++) await (await fetch(`${server.url}/healthz`)).arrayBuffer();
  const headersShareMap = sameMap(headers[0]!, headers[1]!);
  const room = rootMapRoom(500);
  const tickObjectsShareMap = await tickObjectsShareMapWithRootMapFull();
  printLoadCacheAfterTenClasses();
  await idleCollectionsThenPrintNextTickFeedback();
  const requestFields = await requestFieldsClasses();
  process.stdout.write(
    `${JSON.stringify({ headersShareMap, rootMapRoom: room, tickObjectsShareMap, requestFields })}\n`,
  );
} finally {
  await server.close();
}
