import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs a walkthrough document's shell blocks as written (docs/quickstart.md). The document marks
 * each fenced block with an HTML comment on the line(s) before it:
 * - `<!-- walkthrough:run -->` a `sh` block, run in one bash session (`set -eo pipefail`), so
 *   variables carry from block to block;
 * - `<!-- walkthrough:server -->` a `sh` block started in the background (the server), kept running;
 * - `<!-- walkthrough:env -->` a `sh` block of `export NAME=value` lines: the runner sets those
 *   variables itself (its own ports), after checking the block names exactly them;
 * - `<!-- walkthrough:skip <reason> -->` a `sh` block not run;
 * - `<!-- walkthrough:expect -->` a `text` block: the output the block before it must contain, with
 *   `…` standing for anything and each run of whitespace for any whitespace.
 * A `sh` block without a marker is an error, so a command cannot be added to the page untested.
 */
export type StepKind = 'run' | 'server' | 'env' | 'skip';

export interface WalkthroughStep {
  kind: StepKind;
  code: string;
  /** 1-based line of the block's opening fence, for messages. */
  line: number;
  expect?: string;
}

const MARKER = /^<!--\s*walkthrough:(run|server|env|skip|expect)\b.*-->\s*$/;
const FENCE = /^```(\S*)/;

export function parseWalkthrough(markdown: string): WalkthroughStep[] {
  const lines = markdown.split('\n');
  const steps: WalkthroughStep[] = [];
  let pending: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]!);
    if (marker) {
      pending = marker[1];
      continue;
    }
    const fence = FENCE.exec(lines[i]!);
    if (!fence) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`line ${start + 1}: unclosed code block`);
    const language = fence[1];
    const code = body.join('\n');
    const kind = pending;
    pending = undefined;
    if (kind === 'expect') {
      const previous = steps.at(-1);
      if (!previous || (previous.kind !== 'run' && previous.kind !== 'server') || previous.expect) {
        throw new Error(`line ${start + 1}: an expect block must follow a run or server block`);
      }
      previous.expect = code;
    } else if (kind) {
      if (language !== 'sh') throw new Error(`line ${start + 1}: a walkthrough:${kind} block must be sh`);
      steps.push({ kind: kind as StepKind, code, line: start + 1 });
    } else if (language === 'sh' || language === 'bash') {
      throw new Error(`line ${start + 1}: shell block without a walkthrough marker`);
    }
  }
  return steps;
}

/** The expected output as a pattern: `…` matches anything, whitespace runs match any whitespace. */
export function expectationPattern(expected: string): RegExp {
  const literal = (text: string) =>
    text
      .split(/\s+/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\s+');
  return new RegExp(expected.trim().split('…').map(literal).join('[\\s\\S]*?'));
}

/** The variables an env block exports, in order. */
export function exportedVariables(code: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const line of code.split('\n')) {
    const text = line.replace(/#.*$/, '').trim();
    if (!text) continue;
    const match = /^export ([A-Z_][A-Z0-9_]*)=(\S+)$/.exec(text);
    if (!match) throw new Error(`env block: not an export: ${line}`);
    vars.set(match[1]!, match[2]!);
  }
  return vars;
}

export class WalkthroughError extends Error {}

export interface WalkthroughRun {
  /** Each run block's standard output, in order. */
  outputs: { line: number; output: string }[];
  stop(): Promise<void>;
}

export interface RunOptions {
  cwd: string;
  /** The whole environment of every block (the env block's variables included). */
  env: Record<string, string>;
  stepTimeoutMs: number;
  serverTimeoutMs: number;
}

/**
 * Runs the steps in order; throws a `WalkthroughError` naming the block's line when a block fails,
 * times out or its output does not match. `stop` ends the server blocks' processes.
 */
export async function runWalkthrough(steps: WalkthroughStep[], options: RunOptions): Promise<WalkthroughRun> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-walkthrough-'));
  const servers: ChildProcess[] = [];
  const shell = new BashSession(options.cwd, options.env);
  const outputs: WalkthroughRun['outputs'] = [];
  const stop = async () => {
    await shell.close();
    await Promise.all(servers.map(stopProcessGroup));
    fs.rmSync(scratch, { recursive: true, force: true });
  };
  try {
    for (const [index, step] of steps.entries()) {
      if (step.kind === 'skip' || step.kind === 'env') continue;
      if (step.kind === 'server') {
        servers.push(await startServerBlock(step, options));
        continue;
      }
      const file = path.join(scratch, `step-${index}.sh`);
      fs.writeFileSync(file, `${step.code}\n`);
      const output = await shell.source(file, options.stepTimeoutMs).catch((err: Error) => {
        throw new WalkthroughError(`block at line ${step.line} failed: ${err.message}\n${step.code}`);
      });
      outputs.push({ line: step.line, output });
      if (step.expect !== undefined && !expectationPattern(step.expect).test(output)) {
        throw new WalkthroughError(
          `block at line ${step.line}: output does not match the expected\n--- expected\n${step.expect}\n--- output\n${output}`,
        );
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { outputs, stop };
}

/** Starts a server block in its own process group and waits for its expected output. */
function startServerBlock(step: WalkthroughStep, options: RunOptions): Promise<ChildProcess> {
  const child = spawn('bash', ['--noprofile', '--norc', '-c', step.code], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pattern = step.expect === undefined ? undefined : expectationPattern(step.expect);
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void stopProcessGroup(child).then(() =>
        reject(new WalkthroughError(`server block at line ${step.line} ${why}\n--- output\n${output}`)),
      );
    };
    const timer = setTimeout(
      () => fail('did not print its expected output in time'),
      options.serverTimeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!pattern || pattern.test(output)) {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve(child);
      }
    };
    const onExit = (code: number | null) => fail(`exited (${code}) before its expected output`);
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', onExit);
  });
}

async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 20_000);
  await exited;
  clearTimeout(timer);
}

/**
 * One bash process; each block is `source`d into it (stdin from /dev/null, so a command cannot read
 * the script), and a marker line on stdout after it says it finished. Expectations are matched
 * against stdout; stderr is kept for the failure message.
 */
class BashSession {
  private readonly child: ChildProcess;
  private stdout = '';
  private stderr = '';
  private exited: string | undefined;
  private waiter: (() => void) | undefined;
  private count = 0;

  constructor(cwd: string, env: Record<string, string>) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString('utf8');
      this.waiter?.();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.child.once('exit', (code, signal) => {
      this.exited = `bash exited (${code ?? signal})`;
      this.waiter?.();
    });
    this.child.stdin!.write('set -eo pipefail\n');
  }

  async source(file: string, timeoutMs: number): Promise<string> {
    const marker = `__walkthrough_block_${++this.count}_done__`;
    this.stdout = '';
    this.stderr = '';
    this.child.stdin!.write(`source ${JSON.stringify(file)} </dev/null\necho ${marker}\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.stdout.indexOf(marker);
      if (at >= 0) return this.stdout.slice(0, at);
      const why = this.exited ?? (Date.now() >= deadline ? `timed out after ${timeoutMs} ms` : undefined);
      if (why) throw new Error(`${why}\n--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.waiter = () => (clearTimeout(timer), resolve());
      });
      this.waiter = undefined;
    }
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin!.end('exit 0\n');
    await exited;
  }
}
