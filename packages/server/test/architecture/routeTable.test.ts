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
  services: string[];
  stores: string[];
  adapters: string[];
}

/** The rows of the route table in docs/architecture.md: method, path, route file, services, stores, chain adapters. */
function routeTable(): TableRow[] {
  const doc = fs.readFileSync(docPath, 'utf8');
  const rows: TableRow[] = [];
  for (const match of doc.matchAll(/^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|(.*)\|\s*$/gm)) {
    const cells = match[2]!.split('|').map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    rows.push({
      method: match[1]!,
      path: cells[0]![0]!,
      file: cells[1]![0]!,
      services: cells[2] ?? [],
      stores: cells[3] ?? [],
      adapters: cells[4] ?? [],
    });
  }
  return rows;
}

/** Names exported anywhere under src/ (classes, interfaces, types, functions, constants), with their file. */
function exportedNames(): Map<string, string> {
  const names = new Map<string, string>();
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (entry.name.endsWith('.ts')) {
        const text = fs.readFileSync(file, 'utf8');
        const declared =
          /^export\s+(?:abstract\s+)?(?:class|interface|type|function|const|async function)\s+(\w+)/gm;
        for (const m of text.matchAll(declared)) if (!names.has(m[1]!)) names.set(m[1]!, file);
      }
    }
  };
  visit(srcDir);
  return names;
}

const read = (file: string) => fs.readFileSync(file, 'utf8');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The files `file` imports by a relative path (`./x.js` → `x.ts`). */
function relativeImports(file: string): string[] {
  const found: string[] = [];
  for (const m of read(file).matchAll(/from\s+'(\.{1,2}\/[^']+)\.js'/g)) {
    const target = path.resolve(path.dirname(file), `${m[1]!}.ts`);
    if (fs.existsSync(target)) found.push(target);
  }
  return found;
}

/** `file` and every file it reaches by relative imports without leaving `within`. */
function closure(file: string, within: string): string[] {
  const seen = new Set<string>([file]);
  const queue = [file];
  while (queue.length > 0) {
    for (const next of relativeImports(queue.pop()!)) {
      if (!next.startsWith(within + path.sep) || seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return [...seen];
}

/** The balanced `(…)` that opens at `open` in `text`, with what precedes it from `from`. */
function callAt(text: string, from: number, open: number): string {
  let depth = 0;
  for (let end = open; end < text.length; end++) {
    if (text[end] === '(') depth++;
    else if (text[end] === ')' && --depth === 0) return text.slice(from, end + 1);
  }
  return text.slice(from);
}

/**
 * Where the composition root constructs `service`, as text: each `new Service(…)` call, followed back
 * through what fills its arguments (the `const` that built an argument, the `deps.x: Type` of the
 * domain function around it, and the parameters of an adapter function such as `tokenGrantsOf(oauth:
 * OAuthService, …)`), so that the stores, gateways and services behind the service's ports are named.
 */
function wiringOf(files: string[], service: string): string {
  const adapters = new Map<string, string>();
  for (const text of files) {
    for (const m of text.matchAll(/^export function (\w+)\(/gm)) {
      adapters.set(m[1]!, callAt(text, m.index, m.index + m[0].length - 1));
    }
  }
  const found: string[] = [];
  for (const text of files) {
    for (const m of text.matchAll(new RegExp(`\\bnew ${service}\\(`, 'g'))) {
      const fn = text.slice(0, m.index).lastIndexOf('\nexport function ');
      const params = fn < 0 ? '' : callAt(text, fn, text.indexOf('(', fn));
      const depsType = /\bdeps: (\w+)/.exec(params)?.[1];
      const deps =
        (depsType &&
          new RegExp(`^export interface ${depsType} \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(text)?.[1]) ||
        params;
      const queue = [callAt(text, m.index, m.index + m[0].length - 1)];
      const seen = new Set<string>();
      for (let step = 0; step < 3 && queue.length > 0; step++) {
        const pieces = queue.splice(0);
        found.push(...pieces);
        for (const piece of pieces) {
          for (const [, name] of piece.matchAll(/\bdeps\.(\w+)/g)) {
            found.push(new RegExp(`^\\s*${name}\\??: .*$`, 'm').exec(deps)?.[0] ?? '');
          }
          for (const [, name] of piece.matchAll(/(?<![.\w])([a-z]\w*)\b/g)) {
            if (seen.has(name!)) continue;
            seen.add(name!);
            const built = new RegExp(`\\bconst ${name}(?::[^=]+)? = ([\\s\\S]*?);\\n`).exec(text);
            if (built) queue.push(built[0]);
            if (adapters.has(name!)) found.push(adapters.get(name!)!);
          }
        }
      }
    }
  }
  return found.join('\n');
}

/**
 * Where each service sits in the `Services` object routes are handed: the properties of `Services`
 * (composition/index.ts) and of the interfaces it nests (`content: ContentServices` →
 * `content.providers: ProviderService`), by type name.
 */
function servicePaths(exported: Map<string, string>): Map<string, string[][]> {
  const members = (name: string): [string, string][] => {
    const file = exported.get(name);
    if (!file) return [];
    const body = new RegExp(`^export interface ${name}(?: extends [^{]+)? \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(
      read(file),
    )?.[1];
    return [...(body ?? '').matchAll(/^ {2}(?:readonly )?(\w+)\??: (\w+);/gm)].map((m) => [m[1]!, m[2]!]);
  };
  const paths = new Map<string, string[][]>();
  const walk = (name: string, prefix: string[], depth: number) => {
    for (const [property, type] of members(name)) {
      const at = [...prefix, property];
      paths.set(type, [...(paths.get(type) ?? []), at]);
      if (depth > 0) walk(type, at, depth - 1);
    }
  };
  walk('Services', [], 1);
  return paths;
}

/**
 * Whether `source` (a route file and the http/ helpers it imports) reaches the property at `at` of
 * its `services`: `services.content.providers…`, or through a destructured name
 * (`const { custody } = services;` … `custody.verify(…)`, `const { oidc } = services;` … `oidc.userInfo`).
 */
function reaches(source: string, at: string[]): boolean {
  if (new RegExp(`\\bservices\\.${at.map(escape).join('\\.')}\\b`).test(source)) return true;
  // `const { a, b } = services(.x)*;` holds `x.a`, `x.b`; `const a: T = services.x.a;` holds `x.a` as `a`.
  const held: [string, string[]][] = [];
  for (const m of source.matchAll(/\{([^{}]*)\}\s*=\s*(?:\w+\.)?services((?:\.\w+)*)\s*;/g)) {
    const base = m[2]!.split('.').filter(Boolean);
    for (const local of m[1]!.split(',').map((n) => n.trim())) held.push([local, [...base, local]]);
  }
  for (const m of source.matchAll(/\bconst (\w+)(?::\s*\w+)?\s*=\s*services((?:\.\w+)+)\s*;/g)) {
    held.push([m[1]!, m[2]!.split('.').filter(Boolean)]);
  }
  for (const [local, holds] of held) {
    if (!holds.every((part, i) => at[i] === part)) continue;
    const rest = at.slice(holds.length);
    // A whole service held under a local name is used when the name appears again (`custody.verify(…)`).
    const use = rest.length === 0 ? `\\b${local}\\b` : `\\b${local}\\.${rest.map(escape).join('\\.')}\\b`;
    if ((source.match(new RegExp(use, 'g')) ?? []).length > (rest.length === 0 ? 1 : 0)) return true;
  }
  return false;
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
    const unknown = [...new Set(rows.flatMap((r) => [...r.services, ...r.stores, ...r.adapters]))].filter(
      (name) => !exported.has(name),
    );
    expect(unknown).toEqual([]);
  });

  it('names the services each route file calls, and the stores and chain adapters behind them', () => {
    const exported = exportedNames();
    const paths = servicePaths(exported);
    const servicesDir = path.join(srcDir, 'services');
    const compositionDir = path.join(srcDir, 'composition');
    const composition = fs.readdirSync(compositionDir).map((f) => read(path.join(compositionDir, f)));
    /**
     * What a service reaches: its module and the services/ modules it imports (types and ports included);
     * where the composition root constructs it, which plugs a store, a gateway or another service into
     * the service's ports; and what the services named there reach in turn (e.g. the `AccountService` over
     * `UserStore` that fills the userinfo service's user port).
     */
    const reachOf = (service: string): string => {
      const file = exported.get(service);
      const own = file ? closure(file, servicesDir).map(read) : [];
      const wiring = [wiringOf(composition, service)];
      const named = wiring.flatMap((text) =>
        [...new Set(text.match(/\b[A-Z]\w+\b/g) ?? [])]
          .map((name) => exported.get(name))
          .filter((at): at is string => at !== undefined && at.startsWith(servicesDir + path.sep))
          .flatMap((at) => closure(at, servicesDir).map(read)),
      );
      const reached = [...own, ...wiring, ...named].join('\n');
      // A port the composition root fills with a chain gateway in one typed line
      // (`const chain: ContentTokenChain = new ContentTokenGateway(…)`) reaches that gateway.
      const adapters = [...composition.join('\n').matchAll(/\bconst \w+: (\w+) = (?:\w+\()?new (\w+)\(/g)]
        .filter((m) => new RegExp(`\\b${m[1]!}\\b`).test(reached))
        .map((m) => m[2]!);
      return [reached, ...adapters].join('\n');
    };
    const wrong: string[] = [];
    for (const row of routeTable()) {
      const where = `${row.method} ${row.path}`;
      const routeFile = path.join(routesDir, row.file);
      const source = closure(routeFile, path.join(srcDir, 'http')).map(read).join('\n');
      for (const service of row.services) {
        const at = paths.get(service);
        if (!at) wrong.push(`${where}: no property of Services holds ${service}`);
        else if (!at.some((p) => reaches(source, p))) {
          wrong.push(
            `${where}: ${row.file} never calls services.${at.map((p) => p.join('.')).join(' / ')} (${service})`,
          );
        }
      }
      const reach = row.services.map(reachOf).join('\n');
      for (const name of [...row.stores, ...row.adapters]) {
        if (!new RegExp(`\\b${name}\\b`).test(reach)) {
          wrong.push(`${where}: ${name} is not used by ${row.services.join(', ') || 'any service'}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
