/**
 * Every benchmark in sequence, every target of issues 14 and 43 checked, and the figures table of
 * docs/performance.md regenerated (between its marker comments) — on a quiet machine.
 *
 *   npm run bench:all                          # all runs; rewrites the table in docs/performance.md
 *   npm run bench:all -- --only pin,backend    # a subset (runs: http, http-pg, ops, ops-block-2, content,
 *                                              #   content-block-2, backend, backend-pg, pin, passkeys, mfa,
 *                                              #   webhooks-pg, players, gas); table printed only
 *   npm run bench:all -- --quick               # short durations: a smoke check of the pipeline;
 *                                              #   prints the table, never writes the docs
 *   npm run bench:all -- --write               # write the docs even with --only
 *   npm run bench:all -- --against <git ref>   # the regression guard (bench/against.ts): the hot paths
 *                                              #   (validate, exchange, backend, consumption, pin, mfa,
 *                                              #   webhooks; --only picks some) alternated between the
 *                                              #   ref and this tree, --rounds (3) each; exit 1 when a
 *                                              #   figure is worse than the ref by more than --tolerance
 *                                              #   (10 %); webhooks on PostgreSQL with --pg/DATABASE_URL
 *
 * The PostgreSQL runs need DATABASE_URL (or `--pg <url>`) pointing at a reachable server; each uses
 * fresh schemas. Each benchmark writes its figures as JSON through BENCH_JSON (bench/summary.ts)
 * into `--results <dir>` (default: a new temporary directory), which this script reads. Exits 1 when
 * a target is missed or a benchmark produced no figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { runAgainst } from './against.js';
import { evaluateRows, renderFiguresTable, replaceFiguresBlock, type Summaries } from './figures.js';
import { type BenchAllOptions, parseBenchAllArgs } from './regression.js';
import { benchRuns, postgresProblem, spawnRun } from './runs.js';
import { machineInfo } from './summary.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const performanceDoc = path.join(root, 'docs', 'performance.md');

async function main(options: BenchAllOptions): Promise<void> {
  const quick = options.quick;
  const selected = options.only ? new Set(options.only) : undefined;
  const all = benchRuns(quick);
  if (selected) {
    const unknown = [...selected].filter((id) => !all.some((r) => r.id === id));
    if (unknown.length > 0)
      throw new Error(`unknown run(s) ${unknown.join(', ')}; runs: ${all.map((r) => r.id).join(', ')}`);
  }
  // Absolute: a run spawned in a package's folder (gas) writes its JSON there too.
  const resultsDir = path.resolve(
    options.results ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-all-')),
  );
  fs.mkdirSync(resultsDir, { recursive: true });
  const databaseUrl = options.pg ?? process.env.DATABASE_URL;
  const wantsPostgres = all.some((r) => r.postgres && (!selected || selected.has(r.id)));
  // A PostgreSQL that was named but does not answer stops the run before it starts: a full run without its
  // PostgreSQL rows is not the table that was asked for (a URL without a user name, say, reads as no server).
  const problem = databaseUrl !== undefined && wantsPostgres ? await postgresProblem(databaseUrl) : undefined;
  if (problem !== undefined) {
    console.error(`bench:all: ${problem}`);
    process.exitCode = 2;
    return;
  }
  const postgres = databaseUrl !== undefined && wantsPostgres;
  const loadAverage = os.loadavg();
  const startedAt = new Date();

  const summaries: Summaries = {};
  const failures: string[] = [];
  for (const run of all) {
    if (selected && !selected.has(run.id)) continue;
    if (run.postgres && !postgres) {
      process.stderr.write(`\n== ${run.id}: skipped (no PostgreSQL: set DATABASE_URL or --pg)\n`);
      continue;
    }
    const file = path.join(resultsDir, `${run.id}.json`);
    fs.rmSync(file, { force: true });
    process.stderr.write(`\n== ${run.id}: node ${run.args.join(' ')}\n`);
    const { DATABASE_URL: _ignored, ...baseEnv } = process.env;
    const code = await spawnRun(run, root, {
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
  const flags = [...(quick ? ['--quick'] : []), ...(options.only ? ['--only', options.only.join(',')] : [])];
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
  await formatResults(resultsDir);

  const writeDocs = !quick && (selected === undefined || options.write);
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

const argv = process.argv.slice(2);
let options: BenchAllOptions;
try {
  options = parseBenchAllArgs(argv);
} catch (err) {
  console.error(`bench:all: ${(err as Error).message}`);
  process.exit(2);
}
const run =
  options.against === undefined
    ? main(options)
    : runAgainst(root, options, `npm run bench:all -- ${argv.join(' ')}`).then((code) => {
        process.exitCode = code;
      });
run.catch((err: unknown) => {
  console.error(err);
  // The guard keeps exit 1 for a regression: anything that stopped it is "no comparison" (2).
  process.exit(options.against === undefined ? 1 : 2);
});

/**
 * The results as the repository's Prettier settings write them: a results folder under docs/ is committed, and
 * `npm run lint` checks its formatting (the benchmarks write compact JSON).
 */
async function formatResults(dir: string): Promise<void> {
  for (const name of fs.readdirSync(dir)) {
    if (!/\.(json|md)$/.test(name)) continue;
    const file = path.join(dir, name);
    const text = fs.readFileSync(file, 'utf8');
    const formatted = await prettier.format(text, {
      ...(await prettier.resolveConfig(file)),
      filepath: file,
    });
    if (formatted !== text) fs.writeFileSync(file, formatted);
  }
}
