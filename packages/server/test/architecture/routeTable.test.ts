import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as FastifyModule from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const srcDir = path.resolve(here, '../../src');
const routesDir = path.join(srcDir, 'http/routes');
const docPath = path.resolve(here, '../../../../docs/architecture.md');

/** Every route the app registers, with the route file that called `app.get/post/…` (from the call stack). */
const registered = vi.hoisted(() => [] as { method: string; url: string; file: string | undefined }[]);

vi.mock('fastify', async (importOriginal) => {
  const actual = await importOriginal<typeof FastifyModule>();
  const withRouteLog = ((options?: Parameters<typeof actual.default>[0]) => {
    const app = actual.default(options);
    app.addHook('onRoute', (route) => {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 100;
      const stack = new Error().stack ?? '';
      Error.stackTraceLimit = limit;
      const file = /\/src\/http\/routes\/([\w/]+\.ts):\d+/.exec(stack)?.[1];
      for (const method of [route.method].flat()) registered.push({ method, url: route.url, file });
    });
    return app;
  }) as unknown as typeof actual.default;
  return { ...actual, default: withRouteLog };
});

interface TableRow {
  method: string;
  path: string;
  file: string;
  names: string[];
}

/** The rows of the route table in docs/architecture.md: method, path, route file, then named components. */
function routeTable(): TableRow[] {
  const doc = fs.readFileSync(docPath, 'utf8');
  const rows: TableRow[] = [];
  for (const match of doc.matchAll(/^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|(.*)\|\s*$/gm)) {
    const cells = match[2]!.split('|').map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    rows.push({
      method: match[1]!,
      path: cells[0]![0]!,
      file: cells[1]![0]!,
      names: cells.slice(2).flat(),
    });
  }
  return rows;
}

/** Names exported anywhere under src/ (classes, interfaces, types, functions, constants). */
function exportedNames(): Set<string> {
  const names = new Set<string>();
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (entry.name.endsWith('.ts')) {
        const text = fs.readFileSync(file, 'utf8');
        const declared =
          /^export\s+(?:abstract\s+)?(?:class|interface|type|function|const|async function)\s+(\w+)/gm;
        for (const m of text.matchAll(declared)) names.add(m[1]!);
      }
    }
  };
  visit(srcDir);
  return names;
}

describe('the route table of docs/architecture.md', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  }, 60_000);
  afterAll(() => server.close());

  // HEAD is Fastify's automatic twin of each GET; /docs is the OpenAPI UI of @fastify/swagger-ui.
  const ownRoutes = () => registered.filter((r) => r.method !== 'HEAD' && !r.url.startsWith('/docs'));
  const key = (method: string, url: string) => `${method} ${url}`;

  it('names every route the app registers, with the file that registers it, and no other', () => {
    const table = routeTable();
    const routes = ownRoutes();
    expect(routes.length).toBeGreaterThan(40);
    const inApp = new Map(routes.map((r) => [key(r.method, r.url), r.file]));
    const inTable = new Map(table.map((r) => [key(r.method, r.path), r.file]));
    expect(inTable.size).toBe(table.length);
    expect([...inApp.keys()].filter((k) => !inTable.has(k)).sort()).toEqual([]);
    expect([...inTable.keys()].filter((k) => !inApp.has(k)).sort()).toEqual([]);
    const wrongFile = [...inApp]
      .filter(([k, file]) => inTable.get(k) !== file)
      .map(([k, file]) => `${k}: ${file}`);
    expect(wrongFile).toEqual([]);
  });

  it('names only route files that exist and services, stores and chain adapters that src/ exports', () => {
    const exported = exportedNames();
    const rows = routeTable();
    expect(rows.filter((r) => !fs.existsSync(path.join(routesDir, r.file))).map((r) => r.file)).toEqual([]);
    const unknown = [...new Set(rows.flatMap((r) => r.names))].filter((name) => !exported.has(name));
    expect(unknown).toEqual([]);
  });
});
