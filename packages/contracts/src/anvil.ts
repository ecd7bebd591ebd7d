/**
 * Runs the anvil binary shipped by the npm package `@foundry-rs/anvil` as a child process: the embedded
 * development chain and the chain of every contract test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

export type StartAnvilOptions = {
  /** Loopback port; a free one is picked when omitted. */
  port?: number;
  /** Interface to bind, `127.0.0.1` by default. */
  host?: string;
  /** File anvil loads its state from at start (when it exists) and writes it to on exit (`--state`). */
  statePath?: string;
  /** Chain id, 31337 by default. */
  chainId?: number;
  /** Extra command-line arguments passed to anvil as given. */
  args?: readonly string[];
  /** How long to wait for the RPC to answer, 30 s by default. */
  startTimeoutMs?: number;
};

export type AnvilInstance = {
  rpcUrl: string;
  port: number;
  chainId: number;
  /** anvil's process id. */
  pid: number;
  /** Stops anvil and resolves once the process has exited, so a `--state` file is complete. */
  stop: () => Promise<void>;
};

const require = createRequire(import.meta.url);

/** The native anvil executable: the platform package `@foundry-rs/anvil` depends on, as its `bin.mjs` finds it. */
export function resolveAnvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const name = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const wrapper = require.resolve('@foundry-rs/anvil/package.json');
  const candidates: string[] = [];
  try {
    const platformPackage = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`, {
      paths: [dirname(wrapper)],
    });
    candidates.push(join(dirname(platformPackage), 'bin', name));
  } catch {
    // Not installed as an optional dependency: the wrapper's postinstall may have left it in dist/.
  }
  candidates.push(join(dirname(wrapper), '..', 'dist', name));
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`anvil binary for ${process.platform}-${arch} not found in @foundry-rs/anvil`);
  return found;
}

/** Asks the kernel for a free TCP port on `host`. */
export async function getFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not determine a free port'));
      });
    });
  });
}

async function rpcAnswers(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    return response.ok;
  } catch {
    return false;
  }
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts anvil and resolves once its JSON-RPC answers. */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const host = options.host ?? '127.0.0.1';
  const chainId = options.chainId ?? 31337;
  const port = options.port ?? (await getFreePort(host));
  // --no-cors: anvil answers every method, cheat codes (anvil_setStorageAt, anvil_impersonateAccount)
  // included; with CORS open any web page a user of this machine visits could rewrite the chain.
  const args = ['--host', host, '--port', String(port), '--chain-id', String(chainId), '--no-cors'];
  // --state both loads (if present) and dumps on exit; anvil writes it when it receives SIGTERM/SIGINT.
  if (options.statePath) args.push('--state', options.statePath);
  args.push(...(options.args ?? []));

  const child = spawn(resolveAnvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Keep the last output for error messages, and keep reading so full pipes never block anvil.
  let output = '';
  let listening = false;
  const listeningLine = new RegExp(`Listening on \\S*:${port}\\b`);
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
    // Printed once this process has bound the port: an RPC answer alone could come from another process
    // already holding it.
    if (!listening && listeningLine.test(output)) listening = true;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = waitForExit(child);

  const rpcUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`anvil exited during start (code ${child.exitCode ?? child.signalCode}): ${output}`);
    }
    if (listening && (await rpcAnswers(rpcUrl))) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`anvil did not answer on ${rpcUrl} in time: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    })();
    return stopping;
  };
  return { rpcUrl, port, chainId, pid: child.pid!, stop };
}
