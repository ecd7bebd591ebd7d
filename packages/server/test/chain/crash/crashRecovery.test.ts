import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AnvilInstance, dauthContentTokenAbi, getFreePort, startAnvil } from '@dauth/contracts';
import pino from 'pino';
import { createPublicClient, getAddress, http, type Address, type Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED_CHAIN_KEYS } from '../../../src/chain/devAccounts.js';
import { isWholeDump } from '../../../src/chain/stateDump.js';
import { loadConfig } from '../../../src/config.js';
import { startServer } from '../../../src/server.js';
import { createPgSchema } from '../../helpers/databases.js';
import { embeddedOnly, inCi, postgresAvailable, TEST_DATABASE_URL } from '../../helpers/environment.js';
import type { TestServer } from '../../helpers/server.js';
import { consume, encryptPayload, get, post, usageRecordCount } from '../../content/contentSupport.js';
import { type Line, runUntilKilled } from './crashSupport.js';

/**
 * Decisions §7 "A confirmed chain write survives any crash": the whole service (node process and its
 * anvil) is SIGKILLed at a random moment within a second after a chain write was answered as included,
 * and restarted on the same DATA_DIR. Everything answered must be on the chain, balances conserved, every
 * accepted consumption counted exactly once, and the users must be able to keep working.
 */

const KILL_POINTS = ['first_op', 'erc20', 'slot', 'purchase', 'release', 'market', 'stream'] as const;
type KillPoint = (typeof KILL_POINTS)[number];

const pick = <T>(items: readonly T[], n: number): T[] =>
  [...items].sort(() => Math.random() - 0.5).slice(0, n);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CRASH_POINTS=first_op,stream picks them; otherwise a random few per run (each run covers others). */
const chosen = (n: number): KillPoint[] =>
  process.env.CRASH_POINTS ? (process.env.CRASH_POINTS.split(',') as KillPoint[]) : pick(KILL_POINTS, n);

function killAt(point: KillPoint): (line: Line) => boolean {
  if (point !== 'stream') return (line) => line.step === point;
  const nth = 3 + Math.floor(Math.random() * 20);
  return (line) => line.step === 'consumed' && line.n === nth;
}

async function restart(env: Record<string, string>, pgSchema?: string): Promise<TestServer> {
  const port = await getFreePort('127.0.0.1');
  const config = loadConfig({ ...env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  const running = await startServer(config, {
    // CRASH_LOG=info shows the restarted service's log (the recovery's reasons) on stderr.
    logger: pino({ level: process.env.CRASH_LOG ?? 'silent' }, pino.destination(2)),
    ...(pgSchema ? { pgSchema } : {}),
    ...(env.TEST_JOURNAL === 'off' ? { chain: { journal: false } } : {}),
  });
  return { ...running, config, dataDir: config.dataDir };
}

const baseEnv = (dataDir: string): Record<string, string> => ({
  HOST: '127.0.0.1',
  PORT: '0',
  PUBLIC_URL: 'http://127.0.0.1:1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  MASTER_KEY: 'ab'.repeat(32),
  ADMIN_API_KEY: 'test-admin-key-0123456789',
});

/** Everything the child printed as answered is on the chain, and the users can go on. */
async function verify(server: TestServer, lines: Line[]): Promise<void> {
  const { gateway, info } = server.services.chain;
  const chainConfig = server.config.chain;
  const rpc = createPublicClient({
    transport: http(info.rpcUrl ?? (chainConfig.kind === 'external' ? chainConfig.rpcUrl : undefined)),
  });
  const of = (step: string) => lines.filter((l) => l.step === step);

  for (const line of lines.filter((l) => typeof l.tx === 'string' && l.tx !== '')) {
    const receipt = await rpc.getTransactionReceipt({ hash: line.tx as Hex });
    expect(receipt.status, `${line.step} ${String(line.tx)}`).toBe('success');
  }
  for (const line of of('first_op')) {
    expect(await gateway.walletOwner(line.wallet as Address)).toBeDefined();
  }
  for (const line of of('erc20')) {
    expect(await gateway.tokenBalance(line.to as Address)).toBe(BigInt(line.amount as string));
  }
  const users = of('users')[0] as unknown as {
    provider: { clientId: string; cuid: string; key: string; iv: string };
    alice: { email: string; uuid: number; pin: Record<string, string>; wallet: Address };
  };
  const sold = of('market')[0];
  for (const line of of('slot')) {
    // After a sale Alice owns Bob's slot too; her own slot stays hers either way.
    expect(getAddress((await gateway.slotOwner(BigInt(line.slotId as string)))!)).toBe(
      getAddress(line.owner as string),
    );
  }
  if (sold) {
    expect(getAddress((await gateway.slotOwner(BigInt(sold.slotId as string)))!)).toBe(
      getAddress(sold.buyerWallet as string),
    );
  }
  for (const line of of('release')) {
    expect(BigInt(line.amount as string)).toBeGreaterThan(0n);
    expect(await gateway.nativeBalance(line.owner as Address)).toBe(BigInt(line.ownerBalance as string));
  }

  const purchase = of('purchase')[0];
  if (purchase) {
    // The batcher settles what the crash left (records of unanswered requests may land or not).
    for (let i = 0; i < 200 && (await usageRecordCount(server, ['queued', 'sent'])) > 0; i++)
      await sleep(100);
    expect(await usageRecordCount(server, ['queued', 'sent'])).toBe(0);
    const read = (fn: 'balanceOf' | 'usedBalanceOf') =>
      rpc.readContract({
        address: info.contracts.content_token,
        abi: dauthContentTokenAbi,
        functionName: fn,
        args: [purchase.cuid as string, purchase.slot as Address],
      });
    const [balance, used] = [await read('balanceOf'), await read('usedBalanceOf')];
    expect(balance + used).toBe(BigInt(purchase.amount as string));
    const accepted = of('consumed').reduce((sum, l) => sum + BigInt(l.amount as number), 0n);
    const answered = new Set([...of('consumed'), ...of('consume_refused')].map((l) => l.n));
    // Requests sent but never answered (in flight at the kill) may or may not have been recorded.
    const unanswered = of('consume_sent')
      .filter((l) => !answered.has(l.n))
      .reduce((sum, l) => sum + BigInt(l.amount as number), 0n);
    expect(used).toBeGreaterThanOrEqual(accepted);
    expect(used).toBeLessThanOrEqual(accepted + unanswered);
    // Each record counts once: the database's included records add up to the chain's used balance.
    const records = await server.services.database.db
      .selectFrom('content_usage')
      .select(['amount', 'state'])
      .execute();
    const included = records.filter((r) => r.state === 'included').reduce((s, r) => s + BigInt(r.amount), 0n);
    expect(included).toBe(used);
  }

  if (users) {
    // The users can log in, prove their PIN and keep working.
    const login = await post<{ token: string }>(server, '/v1/dev-user/login_devuser', {
      email: users.alice.email,
      password: 'correct horse battery',
    });
    expect(login.status).toBe(200);
    const verified = await post(
      server,
      '/v1/pin/verify',
      { user_uuid: users.alice.uuid, ...users.alice.pin },
      login.body.token,
    );
    expect(verified).toMatchObject({ status: 200, body: { success: true } });
    if (purchase) {
      const more = await consume(server, {
        encrypted_message: encryptPayload(users.provider, {
          client_id: users.provider.clientId,
          user_dbkey: (of('slot')[0]!.slotId as string) ?? '',
          amount: '1',
          cuid: users.provider.cuid,
        }),
      });
      expect(more.status).toBe(200);
    }
  }
  // What the database believes (wallets, slots, content balances) is what the chain holds.
  expect((await server.services.chainConsistency.run()).differences).toEqual([]);
  const ready = await get<{ checks: Record<string, string> }>(
    server,
    '/readyz',
    server.services.secrets.adminApiKey,
  );
  expect(ready.status).toBe(200);
  expect(ready.body.checks.chain_consistency).toBe('ok');
}

describe('SIGKILL of the whole service at random moments (embedded chain, SQLite)', () => {
  const dirs: string[] = [];
  afterAll(() => {
    if (!process.env.CRASH_KEEP) dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
  });

  for (const point of chosen(3)) {
    it(`keeps every answered write after a kill within 1 s after: ${point}`, async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-crash-'));
      dirs.push(dataDir);
      const env = {
        ...baseEnv(dataDir),
        ...(process.env.TEST_JOURNAL ? { TEST_JOURNAL: process.env.TEST_JOURNAL } : {}),
      };
      const delay = Math.floor(Math.random() * 1000);
      const run = await runUntilKilled(env, killAt(point), delay);
      expect(run.killedAfter, `the child never reached ${point}: ${run.stderr}`).toBeDefined();
      const server = await restart(env);
      try {
        if (env.TEST_JOURNAL !== 'off') expect(server.services.chain.journal.startupRecovery?.failed).toBe(0);
        await verify(server, run.lines);
      } finally {
        await server.close();
      }
    }, 150_000);
  }
});

const pgRequired = (inCi && !embeddedOnly) || postgresAvailable;
describe.runIf(pgRequired)(
  'SIGKILL with PostgreSQL and an external anvil restarted from an old state file',
  () => {
    let anvil: AnvilInstance | undefined;
    const dirs: string[] = [];
    afterAll(() => {
      if (anvil) killNow(anvil);
      dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
    });
    const killNow = (node: AnvilInstance) => {
      try {
        process.kill(node.pid, 'SIGKILL');
      } catch {
        // gone
      }
    };

    for (const point of chosen(1)) {
      it(`keeps every answered write after a kill within 1 s after: ${point}`, async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-crash-pg-'));
        dirs.push(dataDir);
        const statePath = path.join(dataDir, 'external-state.json');
        const oldState = path.join(dataDir, 'external-state-old.json');
        const port = await getFreePort('127.0.0.1');
        anvil = await startAnvil({ port, chainId: 31337, statePath, args: ['--state-interval', '1'] });
        const schema = await createPgSchema();
        const env: Record<string, string> = {
          ...baseEnv(dataDir),
          DATABASE_URL: TEST_DATABASE_URL,
          TEST_PG_SCHEMA: schema.schema,
          CHAIN_RPC_URL: `http://127.0.0.1:${port}`,
          DEPLOYER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.deployer,
          RELAYER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.relayer,
          PAYMASTER_SIGNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.paymasterSigner,
          OPERATOR_OWNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.operatorOwner,
        };
        try {
          // The "old state file": the first complete dump the node had saved once the users were created
          // (anvil rewrites the file in place every second; a copy taken mid-write is half a file).
          let usersCreated = false;
          let copied = false;
          const run = await runUntilKilled(env, killAt(point), Math.floor(Math.random() * 1000), {
            onLine: (line) => {
              usersCreated ||= line.step === 'users';
              if (!usersCreated || copied || !fs.existsSync(statePath)) return;
              fs.writeFileSync(oldState, fs.readFileSync(statePath));
              copied = isWholeDump(oldState);
            },
          });
          expect(run.killedAfter, `the child never reached ${point}: ${run.stderr}`).toBeDefined();
          killNow(anvil);
          await anvil.stop(); // resolves once the process is gone and its port free
          expect(copied).toBe(true);
          anvil = await startAnvil({ port, chainId: 31337, args: ['--load-state', oldState] });
          const server = await restart(env, schema.schema);
          try {
            const recovery = server.services.chain.journal.startupRecovery;
            expect(recovery?.mode).toBe('replay');
            expect(recovery?.failed).toBe(0);
            await verify(server, run.lines);
          } finally {
            await server.close();
          }
        } finally {
          await schema.drop();
        }
      }, 150_000);
    }
  },
);
