import { type ChildProcess, spawn } from 'node:child_process';
import { serviceEntry } from '../helpers/serviceEntry.js';

/**
 * The real service entry (the built dist/main.js when current, else src/main.ts through tsx) on a
 * DATA_DIR (SQLite + embedded chain), in a process group of its own.
 */
export function startService(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, serviceEntry(), {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  child.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  return { child, output: () => output };
}

export async function ready(url: string, service: { child: ChildProcess; output: () => string }) {
  for (let i = 0; i < 1200; i++) {
    if (service.child.exitCode !== null) throw new Error(`service exited:\n${service.output()}`);
    const answer = await fetch(`${url}/readyz`).catch(() => undefined);
    if (answer?.status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service not ready:\n${service.output()}`);
}

export async function kill9(child: ChildProcess): Promise<void> {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGKILL');
  await exited;
}
