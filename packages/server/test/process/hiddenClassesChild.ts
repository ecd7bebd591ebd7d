/**
 * Run by hiddenClasses.test.ts as `node --allow-natives-syntax --import tsx hiddenClassesChild.ts <dataDir>`:
 * starts the real server, sends it two requests, and prints (as JSON) whether their `headers` objects share
 * one hidden class and how many more transitions V8's root object map takes.
 */
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';

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
  process.stdout.write(`${JSON.stringify({ headersShareMap, rootMapRoom: rootMapRoom(500) })}\n`);
} finally {
  await server.close();
}
