import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const CHILD = fileURLToPath(new URL('./crashChild.ts', import.meta.url));

export type Line = { step: string } & Record<string, unknown>;

/**
 * Starts crashChild.ts in a process group of its own (the service and the anvil it spawns), collects
 * every line it prints, and SIGKILLs the whole group `delayMs` after the first line `killAfter` accepts.
 * Resolves with the lines once the group is dead.
 */
export async function runUntilKilled(
  env: Record<string, string>,
  killAfter: (line: Line) => boolean,
  delayMs: number,
  options: { timeoutMs?: number; onLine?: (line: Line) => void; child?: string } = {},
): Promise<{ lines: Line[]; killedAfter: Line | undefined; stderr: string }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', options.child ?? CHILD], {
    detached: true,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Line[] = [];
  let stderr = '';
  let killedAfter: Line | undefined;
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const timeout = setTimeout(killGroup, options.timeoutMs ?? 120_000);
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  createInterface({ input: child.stdout! }).on('line', (text) => {
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      return;
    }
    lines.push(line);
    options.onLine?.(line);
    if (!killedAfter && killAfter(line)) {
      killedAfter = line;
      setTimeout(killGroup, delayMs);
    }
  });
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The group's other members (anvil) die with the same signal; make sure before anyone reuses DATA_DIR.
  killGroup();
  clearTimeout(timeout);
  return { lines, killedAfter, stderr };
}
