import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  CANONICAL_ENTRY_POINT,
  canonicalEntryPointDeployData,
  dauthPaymasterAbi,
  DETERMINISTIC_DEPLOYER,
  getFreePort,
} from '@dauth/contracts';
import { type Address, createPublicClient, createWalletClient, type Hex, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ANVIL_DEV_KEYS } from '../../../src/chain/devAccounts.js';

export interface AltoInstance {
  url: string;
  /** Its process id (for its CPU time). */
  pid: number;
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
  /** One key, or several: Alto sends one bundle at a time per executor account. */
  executorKey: Hex | readonly Hex[];
  utilityKey: Hex;
  safeMode: boolean;
  /** Alto's `--log-level` (default warn). */
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  /** Where to write all of Alto's output as well (the in-memory `output()` keeps its last 5 MB). */
  logPath?: string;
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
      typeof p.executorKey === 'string' ? p.executorKey : p.executorKey.join(','),
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
      p.logLevel ?? 'warn',
      ...(p.extraArgs ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const logFile = p.logPath === undefined ? undefined : fs.createWriteStream(p.logPath);
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-5_000_000);
    logFile?.write(chunk);
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
    pid: child.pid!,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
      if (logFile) await new Promise<void>((resolve) => logFile.end(resolve));
    },
  };
}

export interface AltoOnAnvil extends AltoInstance {
  /** Its executor accounts, which send its bundles. */
  executors: Address[];
}

/**
 * Alto in front of an anvil the caller started, as on a public network: the canonical EntryPoint v0.6 placed
 * first (through the deterministic deployment proxy) unless already there, `executors` fresh executor keys and
 * a utility key funded with 100 ETH each from anvil's first dev account, then Alto started with them. Shared by
 * the Alto tests and `npm run bench:ops -- --bundler alto` (bench/ops.bench.ts).
 */
export async function startAltoOn(p: {
  rpcUrl: string;
  executors?: number;
  safeMode?: boolean;
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  logPath?: string;
  extraArgs?: string[];
}): Promise<AltoOnAnvil> {
  const reader = createPublicClient({ transport: http(p.rpcUrl) });
  const bank = createWalletClient({
    account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
    transport: http(p.rpcUrl),
  });
  const mined = async (hash: Hex) => reader.waitForTransactionReceipt({ hash, pollingInterval: 250 });
  if (!(await reader.getCode({ address: CANONICAL_ENTRY_POINT }))) {
    await mined(
      await bank.sendTransaction({
        chain: null,
        to: DETERMINISTIC_DEPLOYER,
        data: canonicalEntryPointDeployData(),
      }),
    );
  }
  const executorKeys = Array.from({ length: p.executors ?? 1 }, () => generatePrivateKey());
  const utilityKey = generatePrivateKey();
  // Sent one after another (each takes the next pending nonce), mined together.
  const fundings: Hex[] = [];
  for (const key of [...executorKeys, utilityKey]) {
    fundings.push(
      await bank.sendTransaction({
        chain: null,
        to: privateKeyToAccount(key).address,
        value: parseEther('100'),
      }),
    );
  }
  for (const hash of fundings) await mined(hash);
  const alto = await startAlto({
    rpcUrl: p.rpcUrl,
    entryPoint: CANONICAL_ENTRY_POINT,
    executorKey: executorKeys,
    utilityKey,
    safeMode: p.safeMode ?? false,
    ...(p.logLevel ? { logLevel: p.logLevel } : {}),
    ...(p.logPath ? { logPath: p.logPath } : {}),
    ...(p.extraArgs ? { extraArgs: p.extraArgs } : {}),
  });
  return { ...alto, executors: executorKeys.map((key) => privateKeyToAccount(key).address) };
}

/**
 * The paymaster's stake (1 ETH, one day's unstake delay) from the deployer that owns it: ERC-7562 lets a staked
 * paymaster read its own storage, which a bundler's mempool rules check.
 */
export async function stakePaymaster(p: {
  rpcUrl: string;
  deployerKey: Hex;
  paymaster: Address;
}): Promise<void> {
  const reader = createPublicClient({ transport: http(p.rpcUrl) });
  const deployer = createWalletClient({
    account: privateKeyToAccount(p.deployerKey),
    transport: http(p.rpcUrl),
  });
  await reader.waitForTransactionReceipt({
    hash: await deployer.writeContract({
      chain: null,
      address: p.paymaster,
      abi: dauthPaymasterAbi,
      functionName: 'addStake',
      args: [86_400],
      value: parseEther('1'),
    }),
    pollingInterval: 250,
  });
}
