/**
 * The regression guard of `npm run bench:all -- --against <ref>` (issue 43): the ref is checked out in
 * a scratch worktree (`git worktree add --detach`, removed at the end), given its dependencies (hard
 * links of this tree's node_modules when both package-lock.json files are equal, else `npm ci` and
 * better-sqlite3 built from source as .ci/run does) and built; then, hot path by hot path, rounds
 * alternate between the ref (A) and the working tree (B), each round spawning that tree's own benchmark
 * with cwd = that tree and BENCH_JSON to a file per tree and round. Both trees are measured on the same
 * machine minutes apart, so a change that costs CPU shows as a ratio. The comparison and the table are
 * bench/regression.ts (pure, unit-tested).
 *
 * Exit code: 0, no figure worse than the tolerance; 1, a regression; 2, no comparison was possible
 * (the ref does not resolve, its install or build failed, or the working tree's benchmark wrote no
 * figures). A ref's round without figures, or a figure an older benchmark lacks, shows as "—".
 *
 * The hot paths run on SQLite, but webhooks (a `postgres` run): on PostgreSQL when bench:all has a
 * reachable one (`--pg <url>` or DATABASE_URL, as for its PostgreSQL runs), else on SQLite; the table
 * says which.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HotPathId } from './figures.js';
import {
  type BenchAllOptions,
  compareHotPaths,
  HOT_PATH_IDS,
  regressions,
  renderRegressionTable,
} from './regression.js';
import { hotPaths, postgresProblem, spawnRun } from './runs.js';
import { machineInfo } from './summary.js';
import { treeFingerprint } from './treeFingerprint.js';

/** Thrown when the trees cannot be compared at all (exit code 2). */
export class AgainstSetupError extends Error {}

function log(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** Runs a command to completion with its output on ours; throws AgainstSetupError when it fails. */
function must(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  log(`$ (${cwd}) ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.error) throw new AgainstSetupError(`${command}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new AgainstSetupError(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  }
}

function git(root: string, args: string[]): string {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new AgainstSetupError(`git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** The directories holding installed packages: the root's and each workspace package's. */
function nodeModulesDirs(root: string): string[] {
  const packages = path.join(root, 'packages');
  const inPackages = fs.existsSync(packages)
    ? fs.readdirSync(packages).map((name) => path.join('packages', name, 'node_modules'))
    : [];
  return ['node_modules', ...inPackages].filter((dir) => fs.existsSync(path.join(root, dir)));
}

/**
 * Gives the scratch tree its dependencies: hard links of ours when the lock files are equal (seconds,
 * no disk), else a clean install. Nothing run in the scratch tree writes into node_modules, which is
 * what makes sharing the files safe.
 */
function installDependencies(root: string, scratch: string, deps: 'ours' | 'ref'): void {
  const sameDevice = fs.statSync(root).dev === fs.statSync(scratch).dev;
  const sameLock =
    sameDevice &&
    fs
      .readFileSync(path.join(root, 'package-lock.json'))
      .equals(fs.readFileSync(path.join(scratch, 'package-lock.json')));
  if (sameLock || (deps === 'ours' && sameDevice)) {
    log(
      sameLock
        ? '== dependencies: package-lock.json is the same; hard links of this tree’s node_modules'
        : '== dependencies (--deps ours): hard links of this tree’s node_modules; only the code differs',
    );
    for (const dir of nodeModulesDirs(root)) {
      // A workspace package the ref does not have gets nothing.
      if (!fs.existsSync(path.dirname(path.join(scratch, dir)))) continue;
      must('cp', ['-al', path.join(root, dir), path.join(scratch, dir)], root);
    }
    return;
  }
  log('== dependencies: package-lock.json differs (or another file system); npm ci there');
  // As .ci/run: native addons compiled against this Node's headers (npm_config_nodedir), never
  // downloaded prebuilt. An older better-sqlite3 (12.x) compiles in its install script when told to
  // build from source; 13.x has none and ships prebuilds, so it is compiled explicitly afterwards.
  must('npm', ['ci', '--no-audit', '--no-fund'], scratch, {
    ...process.env,
    npm_config_build_from_source: 'true',
  });
  const betterSqlite = path.join(scratch, 'node_modules', 'better-sqlite3');
  if (!fs.existsSync(path.join(betterSqlite, 'build', 'Release', 'better_sqlite3.node'))) {
    must('npm', ['run', 'build-release'], betterSqlite);
  }
}

function readSummary(file: string): unknown {
  if (!fs.existsSync(file)) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The guard: returns the exit code (0 none worse, 1 a regression, 2 no comparison possible). */
export async function runAgainst(root: string, options: BenchAllOptions, command: string): Promise<number> {
  const refName = options.against!;
  const selected = (options.only as HotPathId[] | undefined) ?? HOT_PATH_IDS;
  const paths = hotPaths(options.quick).filter((p) => selected.includes(p.id));
  const loadAverage = os.loadavg();
  const startedAt = new Date();

  let refCommit: string;
  try {
    refCommit = git(root, ['rev-parse', '--verify', '--end-of-options', `${refName}^{commit}`]);
  } catch (err) {
    log(`--against: ${(err as Error).message}`);
    return 2;
  }
  const resultsDir = path.resolve(
    options.results ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-against-')),
  );
  fs.mkdirSync(resultsDir, { recursive: true });
  const treeCommit = git(root, ['rev-parse', 'HEAD']);
  const dirty = git(root, ['status', '--porcelain']) !== '';
  // The working tree runs from its sources: an edit or a commit while the rounds run would measure two codes.
  const treeAtStart = treeFingerprint(root, resultsDir);

  // The PostgreSQL of a `postgres` hot path (webhooks), read as bench:all's PostgreSQL runs read it.
  const postgresPaths = paths.filter((p) => p.run.postgres).map((p) => p.id);
  const databaseUrl = options.pg ?? process.env.DATABASE_URL;
  // Named but unusable (refused, an unknown role, no user name in the URL): stop before any round, as bench:all
  // does, rather than measure the PostgreSQL paths on SQLite unasked.
  const problem =
    postgresPaths.length > 0 && databaseUrl !== undefined ? await postgresProblem(databaseUrl) : undefined;
  if (problem !== undefined) {
    throw new Error(problem);
  }
  const postgres = postgresPaths.length > 0 && databaseUrl !== undefined;
  let databaseNote = '';
  if (postgresPaths.length > 0) {
    const which = postgresPaths.map((id) => `\`${id}\``).join(', ');
    databaseNote = postgres
      ? `${which} ran on PostgreSQL (\`--pg\` or \`DATABASE_URL\`).`
      : `${which} ran on SQLite (no \`--pg\` or \`DATABASE_URL\`).`;
    log(`== ${databaseNote}`);
  }

  // The scratch tree beside the system's temporary files; hard links need the same file system as ours.
  const scratchParent = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-against-'));
  const scratch = path.join(scratchParent, 'tree');
  let added = false;
  const removeScratch = () => {
    if (added) {
      spawnSync('git', ['worktree', 'remove', '--force', scratch], { cwd: root, stdio: 'ignore' });
      added = false;
    }
    fs.rmSync(scratchParent, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    removeScratch();
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    try {
      must('git', ['worktree', 'add', '--quiet', '--detach', scratch, refCommit], root);
      added = true;
      installDependencies(root, scratch, options.deps ?? 'ref');
      must('npm', ['run', 'build'], scratch);
    } catch (err) {
      if (!(err instanceof AgainstSetupError)) throw err;
      log(`--against: ${err.message}`);
      return 2;
    }

    const trees = { ref: scratch, tree: root } as const;
    // The hot paths are SQLite runs but a `postgres` one: a DATABASE_URL of the caller's must not turn
    // the others to PostgreSQL.
    const { DATABASE_URL: _ignored, ...baseEnv } = process.env;
    const summaries: Record<keyof typeof trees, Partial<Record<HotPathId, unknown[]>>> = {
      ref: {},
      tree: {},
    };
    const failures: string[] = [];
    for (const hotPath of paths) {
      for (let round = 0; round < options.rounds; round++) {
        // A B, then B A: each tree goes first as often as the other, so a drift in the machine's load
        // over a hot path's rounds weighs on both alike.
        const order: (keyof typeof trees)[] = round % 2 === 0 ? ['ref', 'tree'] : ['tree', 'ref'];
        for (const side of order) {
          const file = path.join(resultsDir, `${hotPath.id}.${side}.${round + 1}.json`);
          fs.rmSync(file, { force: true });
          const label = side === 'ref' ? `ref ${refName}` : 'working tree';
          log(
            `\n== ${hotPath.id}, round ${round + 1} of ${options.rounds}: ${label}: node ${hotPath.run.args.join(' ')}`,
          );
          const code = await spawnRun(hotPath.run, trees[side], {
            ...baseEnv,
            ...hotPath.run.env,
            ...(hotPath.run.postgres && postgres ? { DATABASE_URL: databaseUrl } : {}),
            BENCH_JSON: file,
          });
          const summary = readSummary(file);
          (summaries[side][hotPath.id] ??= []).push(summary);
          if (summary === undefined)
            failures.push(`${hotPath.id} round ${round + 1} (${label}): exit ${code}, no figures`);
          // A benchmark exits 1 when one of its own targets is missed; its figures still count.
          else if (code !== 0) log(`== exit ${code} (the benchmark's own checks; figures kept)`);
        }
      }
    }

    const comparisons = compareHotPaths(
      paths.map((p) => p.id),
      summaries.ref,
      summaries.tree,
      options.tolerance,
    );
    const table = renderRegressionTable(comparisons, {
      date: startedAt.toISOString().slice(0, 10),
      machine: machineInfo(),
      command,
      ref: { name: refName, commit: refCommit },
      tree: { commit: treeCommit, dirty },
      rounds: options.rounds,
      tolerance: options.tolerance,
      quick: options.quick,
      loadAverage,
    });
    const treeChanged = treeFingerprint(root, resultsDir) !== treeAtStart;
    const notes =
      (options.deps === 'ours'
        ? '\n\nBoth trees ran on this tree’s node_modules (`--deps ours`): the figures compare code, not dependencies.'
        : '') +
      (databaseNote === '' ? '' : `\n\n${databaseNote}`) +
      (treeChanged
        ? '\n\n**The working tree changed while the rounds ran** (a commit, or files edited): its figures mix two codes.'
        : '');
    process.stdout.write(
      `\n${table}${notes}\n\nFigures (JSON, one file per hot path, tree and round): ${resultsDir}\n`,
    );
    fs.writeFileSync(path.join(resultsDir, 'against.md'), `${table}${notes}\n`);
    if (failures.length > 0) process.stdout.write(`without figures: ${failures.join('; ')}\n`);
    if (treeChanged) {
      process.stdout.write('the working tree changed while the rounds ran: run again on a tree left alone\n');
      return 2;
    }

    const worse = regressions(comparisons);
    if (worse.length > 0) {
      process.stdout.write(`worse beyond the tolerance: ${worse.map((c) => c.metric.id).join(', ')}\n`);
      return 1;
    }
    // No regression found, but one the working tree's missing figures could hide is no pass either.
    const treeSilent = paths.filter((p) => (summaries.tree[p.id] ?? []).every((s) => s === undefined));
    if (treeSilent.length > 0) {
      process.stdout.write(
        `the working tree wrote no figures for: ${treeSilent.map((p) => p.id).join(', ')}\n`,
      );
      return 2;
    }
    return 0;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    removeScratch();
  }
}
