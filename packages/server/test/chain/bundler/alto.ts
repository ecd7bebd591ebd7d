import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { getFreePort } from '@dauth/contracts';
import type { Hex } from 'viem';

export interface AltoInstance {
  url: string;
  /** Alto's recent output (for a failure's message). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Alto (`@pimlico/alto` from the npm registry, pinned in packages/server devDependencies), Pimlico's ERC-4337
 * bundler, as a child process of this Node on a free loopback port, pointed at `rpcUrl`.
 */
export async function startAlto(p: {
  rpcUrl: string;
  entryPoint: Hex;
  executorKey: Hex;
  utilityKey: Hex;
  safeMode: boolean;
  extraArgs?: string[];
}): Promise<AltoInstance> {
  const require = createRequire(import.meta.url);
  const cli = path.join(path.dirname(require.resolve('@pimlico/alto')), 'cli', 'alto.js');
  const port = await getFreePort('127.0.0.1');
  const child = spawn(
    process.execPath,
    [
      cli,
      '--entrypoints',
      p.entryPoint,
      '--executor-private-keys',
      p.executorKey,
      '--utility-private-key',
      p.utilityKey,
      '--rpc-url',
      p.rpcUrl,
      '--port',
      String(port),
      '--safe-mode',
      String(p.safeMode),
      // The staking rules a public mempool applies (ERC-7562: 1 ETH, 1 day in production; 1 s here).
      '--min-entity-stake',
      '1',
      '--min-entity-unstake-delay',
      '1',
      '--min-bundle-interval',
      '50',
      '--max-bundle-interval',
      '200',
      '--log-level',
      'warn',
      ...(p.extraArgs ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-5_000_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}/rpc`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`alto exited: ${output.slice(-3_000)}`);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] }),
        signal: AbortSignal.timeout(1_000),
      });
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`alto did not answer within 60 s: ${output.slice(-3_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
