/**
 * Every benchmark in sequence, every target of issue 14 checked, and the figures table of
 * docs/performance.md regenerated (between its marker comments) — on a quiet machine.
 *
 *   npm run bench:all                          # all runs; rewrites the table in docs/performance.md
 *   npm run bench:all -- --only pin,backend    # a subset (runs: http, http-pg, ops, content,
 *                                              #   backend, backend-pg, pin, gas); table printed only
 *   npm run bench:all -- --quick               # short durations: a smoke check of the pipeline;
 *                                              #   prints the table, never writes the docs
 *   npm run bench:all -- --write               # write the docs even with --only
 *
 * The PostgreSQL runs need DATABASE_URL (or `--pg <url>`) pointing at a reachable server; each uses
 * fresh schemas. Each benchmark writes its figures as JSON through BENCH_JSON (bench/summary.ts)
 * into `--results <dir>` (default: a new temporary directory), which this script reads. Exits 1 when
 * a target is missed or a benchmark produced no figures.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import * as prettier from 'prettier';
import {
  evaluateRows,
  renderFiguresTable,
  replaceFiguresBlock,
  type RunId,
  type Summaries,
} from './figures.js';
import { machineInfo } from './summary.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const performanceDoc = path.join(root, 'docs', 'performance.md');

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    rows: { type: 'string' },
    quick: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    pg: { type: 'string' },
    results: { type: 'string' },
  },
});

interface Run {
  id: RunId;
  /** Arguments after `node`, from the repository root unless `cwd` says otherwise. */
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  postgres?: boolean;
}

const tsx = ['--conditions', 'development', '--import', 'tsx'];

/** The runs in order, full or quick (`--quick`: seconds, not minutes, and figures that mean nothing). */
function runs(quick: boolean): Run[] {
  const http: Record<string, string> = quick
    ? { BENCH_SECONDS: '2', BENCH_REPEAT: '1', BENCH_CODES: '600', BENCH_WARMUP_CODES: '200' }
    : {};
  const backend: Record<string, string> = quick
    ? { BENCH_SECONDS: '3', BENCH_WARMUP_SECONDS: '1', BENCH_USERS: '5' }
    : {};
  return [
    { id: 'http', args: [...tsx, 'bench/http.bench.ts'], env: http },
    { id: 'http-pg', args: [...tsx, 'bench/http.bench.ts'], env: http, postgres: true },
    {
      id: 'ops',
      args: [
        ...tsx,
        'bench/ops.bench.ts',
        ...(quick ? ['--concurrency', '10', '--ops', '30', '--rounds', '2', '--journal', 'on'] : []),
      ],
    },
    {
      id: 'content',
      args: [...tsx, 'bench/content.bench.ts'],
      // Quick: only the production configuration (journal on), not the side-by-side journal cost.
      env: quick
        ? { BENCH_SECONDS: '3', BENCH_WARMUP_SECONDS: '1', BENCH_CALLERS: '20', BENCH_JOURNAL: 'on' }
        : {},
    },
    { id: 'backend', args: [...tsx, 'bench/backend.bench.ts'], env: backend },
    { id: 'backend-pg', args: [...tsx, 'bench/backend.bench.ts'], env: backend, postgres: true },
    {
      id: 'pin',
      args: [
        ...tsx,
        'bench/pin.bench.ts',
        ...(quick
          ? [
              '--seconds',
              '3',
              '--idle-seconds',
              '2',
              '--users',
              '16',
              '--concurrency',
              '8',
              '--probe-rps',
              '50',
            ]
          : []),
      ],
    },
    // --check: bench:all reads the gas figures but leaves gas-report.md to `npm run bench:gas`.
    {
      id: 'gas',
      args: ['--import', 'tsx', 'scripts/benchGas.ts', '--check'],
      cwd: path.join(root, 'packages', 'contracts'),
    },
  ];
}

async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function runOne(run: Run, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, run.args, {
      cwd: run.cwd ?? root,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

async function main(): Promise<void> {
  const quick = values.quick;
  const only = values.only ?? values.rows;
  const selected = only ? new Set(only.split(',').map((s) => s.trim())) : undefined;
  const all = runs(quick);
  if (selected) {
    const unknown = [...selected].filter((id) => !all.some((r) => r.id === id));
    if (unknown.length > 0)
      throw new Error(`unknown run(s) ${unknown.join(', ')}; runs: ${all.map((r) => r.id).join(', ')}`);
  }
  const resultsDir = values.results ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-all-'));
  fs.mkdirSync(resultsDir, { recursive: true });
  const databaseUrl = values.pg ?? process.env.DATABASE_URL;
  const postgres = databaseUrl !== undefined && (await postgresReachable(databaseUrl));
  const loadAverage = os.loadavg();
  const startedAt = new Date();

  const summaries: Summaries = {};
  const failures: string[] = [];
  for (const run of all) {
    if (selected && !selected.has(run.id)) continue;
    if (run.postgres && !postgres) {
      process.stderr.write(`\n== ${run.id}: skipped (no reachable PostgreSQL: set DATABASE_URL or --pg)\n`);
      continue;
    }
    const file = path.join(resultsDir, `${run.id}.json`);
    fs.rmSync(file, { force: true });
    process.stderr.write(`\n== ${run.id}: node ${run.args.join(' ')}\n`);
    const { DATABASE_URL: _ignored, ...baseEnv } = process.env;
    const code = await runOne(run, {
      ...baseEnv,
      ...run.env,
      ...(run.postgres ? { DATABASE_URL: databaseUrl } : {}),
      BENCH_JSON: file,
    });
    // A benchmark exits 1 when one of its own targets is missed; its figures still count.
    if (fs.existsSync(file)) {
      summaries[run.id] = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
      if (code !== 0) process.stderr.write(`== ${run.id}: exit ${code} (its own checks; figures kept)\n`);
    } else {
      failures.push(`${run.id} (exit ${code}, no figures)`);
    }
  }

  const results = evaluateRows(summaries).filter((r) => !selected || selected.has(r.definition.run));
  const flags = [...(quick ? ['--quick'] : []), ...(only ? ['--only', only] : [])];
  const command = `npm run bench:all${flags.length > 0 ? ` -- ${flags.join(' ')}` : ''}`;
  const table = renderFiguresTable(results, {
    date: startedAt.toISOString().slice(0, 10),
    machine: machineInfo(),
    command,
    quick,
    loadAverage,
  });
  process.stdout.write(`\n${table}\n\nFigures (JSON): ${resultsDir}\n`);
  fs.writeFileSync(path.join(resultsDir, 'table.md'), `${table}\n`);

  const writeDocs = !quick && (selected === undefined || values.write);
  if (writeDocs) {
    const document = fs.readFileSync(performanceDoc, 'utf8');
    const updated = await prettier.format(replaceFiguresBlock(document, table), {
      ...(await prettier.resolveConfig(performanceDoc)),
      parser: 'markdown',
    });
    fs.writeFileSync(performanceDoc, updated);
    process.stdout.write('docs/performance.md updated.\n');
  }
  const missed = results.filter((r) => r.status === 'missed').map((r) => r.definition.id);
  if (missed.length > 0) process.stdout.write(`missed: ${missed.join(', ')}\n`);
  if (failures.length > 0) process.stdout.write(`failed: ${failures.join(', ')}\n`);
  process.exitCode = missed.length > 0 || failures.length > 0 ? 1 : 0;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
