import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { entryPointAbi } from '@dauth/contracts';
import { keccak256, parseEther } from 'viem';
import pino from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_CHAIN_KEYS } from '../../src/chain/devAccounts.js';
import type { OperationOwner } from '../../src/chain/operations/operationOwner.js';
import { createChainServices } from '../../src/composition/chain.js';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { LeaseStore } from '../../src/stores/leaseStore.js';
import { postgresAvailable, TEST_DATABASE_URL } from '../helpers/environment.js';
import { until } from '../helpers/replicaPair.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import { randomOwner } from './chainTestHelpers.js';
import { REPLICA_ADMIN_KEY, type Replicas, startReplicas } from './replicaSupport.js';

/**
 * Issue 16: replicas that shared one relayer key collided on its nonces. Two replicas on one PostgreSQL
 * schema and one external anvil, each with its own key of RELAYER_PRIVATE_KEYS, send sponsored operations
 * at the same time: every one lands, each replica's bundles come from its own relayer, and no relayer
 * transaction lost its nonce to another (none was re-signed or dropped).
 */
describe.skipIf(!postgresAvailable)('relayer keys per replica (RELAYER_PRIVATE_KEYS, REPLICA_ID)', () => {
  let r: Replicas;
  beforeAll(async () => {
    r = await startReplicas({ count: 2 });
  }, 120_000);
  afterAll(async () => {
    await r?.close();
  });

  const relayerOf = (i: number) => privateKeyToAccount(r.relayerKeys[i]!).address;
  /** A sponsored transfer of nothing from `owner`'s wallet (`sender` once it may not be the counterfactual one). */
  const zeroTransfer = (server: Replicas['servers'][number], owner: OperationOwner, sender?: `0x${string}`) =>
    server.services.chain.operations.submitOperation({
      owner,
      salt: 0n,
      ...(sender ? { sender } : {}),
      calls: [server.services.chain.calls.nativeTransfer(owner.address, 0n)],
    });

  it('each replica signs with its own key; one funding call through either funds every key', async () => {
    const [a, b] = r.servers as [(typeof r.servers)[0], (typeof r.servers)[0]];
    expect(a.services.chain.telemetry.relayerAddress).toBe(relayerOf(0));
    expect(b.services.chain.telemetry.relayerAddress).toBe(relayerOf(1));
    expect(a.services.chain.telemetry.relayerAddresses).toEqual([relayerOf(0), relayerOf(1)]);
    // An external chain deposits nothing and the fresh relayers hold nothing: /readyz says so, per replica.
    const low = await b.services.funds.check();
    expect(low.low).toEqual(['paymaster_deposit', 'relayer_balance']);

    const res = await r.fund(1, {
      paymaster_deposit: parseEther('10').toString(),
      relayer: parseEther('5').toString(),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      relayer_balance: string;
      relayer_balances: { address: string; balance: string }[];
    };
    expect(body.relayer_balances).toEqual([
      { address: relayerOf(0), balance: parseEther('5').toString() },
      { address: relayerOf(1), balance: parseEther('5').toString() },
    ]);
    // `relayer_balance` is the answering replica's own (B's, index 1).
    expect(body.relayer_balance).toBe(parseEther('5').toString());
    expect((await a.services.funds.check()).low).toEqual([]);

    // The admin call is audited with what it moved (the audit log is shared: read through the other replica).
    // The entry is written once the answer has gone out (auditRecorder's onResponse): read until it is there.
    const fundingEntries = async () =>
      (
        (await (
          await fetch(`${a.url}/v1/admin/audit?action=admin.funding`, {
            headers: { authorization: `Bearer ${REPLICA_ADMIN_KEY}` },
          })
        ).json()) as { entries: { outcome: string; details: Record<string, unknown> }[] }
      ).entries;
    await expect.poll(fundingEntries, { timeout: 10_000, interval: 50 }).toHaveLength(1);
    const entries = await fundingEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      outcome: 'success',
      details: { paymaster_deposit: parseEther('10').toString(), relayer: parseEther('5').toString() },
    });

    // /metrics names the replica's relayer.
    const metrics = await (
      await fetch(`${a.url}/metrics`, { headers: { authorization: 'Bearer replica-admin-key-0123456789' } })
    ).text();
    expect(metrics).toMatch(
      new RegExp(`^dauth_relayer_balance_ether\\{relayer="${relayerOf(0)}"\\} 5$`, 'm'),
    );
  });

  it('sponsored operations sent through both replicas at once all land, without a nonce collision', async () => {
    const perReplica = 20;
    const submit = (i: number) => zeroTransfer(r.servers[i]!, randomOwner());
    const client = r.servers[0]!.services.chain.gateway.client;
    const noncesBefore = await Promise.all(
      [0, 1].map((i) => client.getTransactionCount({ address: relayerOf(i) })),
    );
    // Two waves per replica, both replicas at the same time: several bundles of each relayer in flight.
    const results = await Promise.all(
      [0, 1].map(async (i) => {
        const out = [];
        for (let wave = 0; wave < 2; wave++) {
          out.push(...(await Promise.all(Array.from({ length: perReplica / 2 }, () => submit(i)))));
        }
        return out;
      }),
    );
    // The shared journal: each relayer's own transactions, all mined, none dropped or replaced.
    const rows = await r.servers[0]!.services.database.db.selectFrom('chain_journal')
      .select(['sender', 'state'])
      .execute();
    for (const [i, replicaResults] of results.entries()) {
      expect(replicaResults).toHaveLength(perReplica);
      const bundles = new Set<string>();
      for (const result of replicaResults) {
        expect(result.success).toBe(true);
        bundles.add(result.txHash);
      }
      // Every bundle of this replica was sent by its own relayer.
      for (const hash of bundles) {
        const tx = await client.getTransaction({ hash: hash as `0x${string}` });
        expect(tx.from.toLowerCase()).toBe(relayerOf(i).toLowerCase());
      }
      // Each nonce the relayer used went to a bundle that landed: nothing was re-signed over a collision.
      const nonce = await client.getTransactionCount({ address: relayerOf(i) });
      expect(nonce - noncesBefore[i]!).toBe(bundles.size);
      const journaled = rows.filter((row) => row.sender.toLowerCase() === relayerOf(i).toLowerCase());
      expect(journaled.map((row) => row.state)).toEqual(Array.from(bundles, () => 'mined'));
    }
  }, 120_000);

  it('one wallet’s identical operations sent through both replicas in one block are two operations, each answered with its own', async () => {
    // The defect: both replicas read the wallet's EntryPoint nonce N, signed the same calls under it in the
    // same second (a byte-identical operation, one hash), and both bundles went out; the second bundle
    // reverted (AA25), and its replica, looking its operation's hash up on chain, found the first replica's
    // UserOperationEvent and answered success. Two requests answered done, one ran. Each replica now sends
    // under a nonce key of its own (docs/chain.md, "Nonce lanes per replica").
    const [a, b] = r.servers as [(typeof r.servers)[0], (typeof r.servers)[0]];
    const owner = randomOwner();
    const submit = (s: typeof a, sender?: `0x${string}`) => zeroTransfer(s, owner, sender);
    const deployed = await submit(a);
    expect(deployed.success).toBe(true);
    const client = a.services.chain.gateway.client;
    const fromBlock = (await client.getBlockNumber()) + 1n;
    const rpc = (method: string, params: unknown[] = []) =>
      client.request({ method, params } as never) as Promise<unknown>;
    const pending = (i: number) =>
      Promise.all([
        client.getTransactionCount({ address: relayerOf(i), blockTag: 'pending' }),
        client.getTransactionCount({ address: relayerOf(i) }),
      ]).then(([p, l]) => p > l);
    // Both bundles are simulated against one state and mined in one block; both replicas read the fees of
    // that state (not each its own cached figure), so the two operations are byte for byte the same.
    await rpc('evm_setAutomine', [false]);
    for (const s of [a, b]) s.services.chain.gateway.resetCaches();
    let results: Awaited<ReturnType<typeof submit>>[];
    try {
      const both = Promise.all([submit(a, deployed.sender), submit(b, deployed.sender)]);
      await until(async () => (await pending(0)) && (await pending(1)), 30_000);
      await rpc('evm_mine');
      await rpc('evm_setAutomine', [true]);
      results = await both;
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(results.map((x) => x.success)).toEqual([true, true]);
    expect(results[0]!.userOpHash).not.toBe(results[1]!.userOpHash);
    // In the one block: neither waited for the other (each replica's own nonce lane), nothing was sent twice.
    expect(results[0]!.blockNumber).toBe(results[1]!.blockNumber);
    // On chain: two operations of the wallet since, each answer's own, each in its own replica's bundle.
    const events = await client.getContractEvents({
      address: a.services.chain.gateway.contracts.entry_point,
      abi: entryPointAbi,
      eventName: 'UserOperationEvent',
      args: { sender: deployed.sender },
      fromBlock,
    });
    expect(events.map((e) => e.args.success)).toEqual([true, true]);
    expect(events.map((e) => e.args.userOpHash).sort()).toEqual(results.map((x) => x.userOpHash).sort());
    for (const [i, result] of results.entries()) {
      const tx = await client.getTransaction({ hash: result.txHash });
      expect(tx.from.toLowerCase()).toBe(relayerOf(i).toLowerCase());
    }
  }, 120_000);

  it('a new wallet’s first operations through both replicas at once all land; one deploys it', async () => {
    // Each replica's first operation of the wallet carries the initCode (the first of its nonce lane). The
    // one mined second is refused (AA10, the wallet exists now) without its nonce having moved: it is signed
    // again without the initCode, not retried as it was until its attempts ran out.
    const [a, b] = r.servers as [(typeof r.servers)[0], (typeof r.servers)[0]];
    const owner = randomOwner();
    const submit = (s: typeof a) => zeroTransfer(s, owner);
    const client = a.services.chain.gateway.client;
    const fromBlock = (await client.getBlockNumber()) + 1n;
    const results = await Promise.all([submit(a), submit(b), submit(a), submit(b)]);
    expect(results.map((x) => x.success)).toEqual([true, true, true, true]);
    expect(new Set(results.map((x) => x.userOpHash)).size).toBe(4);
    const deployments = await client.getContractEvents({
      address: a.services.chain.gateway.contracts.entry_point,
      abi: entryPointAbi,
      eventName: 'AccountDeployed',
      args: { sender: results[0]!.sender },
      fromBlock,
    });
    expect(deployments).toHaveLength(1);
  }, 120_000);

  it("a replica starting beside live ones gives back its own unanswered transactions only, not another's", async () => {
    // Replica A has a relayer transaction journaled and not yet mined (in flight; here: never sent).
    const a = r.servers[0]!;
    const client = a.services.chain.gateway.client;
    const relayerA = privateKeyToAccount(r.relayerKeys[0]!);
    const nonce = await client.getTransactionCount({ address: relayerA.address, blockTag: 'pending' });
    const raw = await relayerA.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce,
      to: relayerA.address,
      value: 0n,
      gas: 21_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 1n,
    });
    const hash = keccak256(raw);
    const journal = a.services.chain.journal.sender.journal;
    await journal.record({
      hash,
      chainId: 31337,
      seq: Date.now() * 1000,
      sender: relayerA.address,
      nonce,
      raw,
    });

    // Replica B's process starts again meanwhile (same key list, REPLICA_ID 1, the shared schema).
    const b = r.servers[1]!.services;
    const restarted = await createChainServices(
      loadConfig({
        DATA_DIR: b.config.dataDir,
        LOG_LEVEL: 'silent',
        DATABASE_URL: TEST_DATABASE_URL,
        MASTER_KEY: 'cd'.repeat(32),
        ADMIN_API_KEY: REPLICA_ADMIN_KEY,
        CHAIN_RPC_URL: r.node.rpcUrl,
        DEPLOYER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.deployer,
        PAYMASTER_SIGNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.paymasterSigner,
        OPERATOR_OWNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.operatorOwner,
        RELAYER_PRIVATE_KEYS: r.relayerKeys.join(','),
        REPLICA_ID: '1',
      }),
      { logger: pino({ level: 'silent' }), db: b.database.db },
    );
    try {
      // A's transaction is A's to settle: B neither sent it nor mined it (nor switched the node's automine off).
      expect(restarted.journal.startupRecovery).toMatchObject({ missing: 0, replayed: 0 });
      expect(await client.getTransactionCount({ address: relayerA.address })).toBe(nonce);
      expect(await client.getTransaction({ hash }).catch(() => undefined)).toBeUndefined();
    } finally {
      await restarted.close();
      await journal.markDropped([hash]);
    }
  });

  it("a second process given a live replica's REPLICA_ID is refused at start; the replica keeps sending", async () => {
    const b = r.servers[1]!;
    // The test above started and closed a copy of B's chain services in this process, which gave B's lease row
    // up (same holder); B's next renewal takes it back: done now rather than in up to 10 s.
    await b.services.chain.lease!.renew();
    // An operator starts another process as replica 1 (another DATA_DIR; here it waits one short TTL).
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-duplicate-'));
    try {
      const duplicate = startServer(
        loadConfig({ ...r.envs[1]!, DATA_DIR: dataDir, PORT: String(await freePort()) }),
        {
          logger: pino({ level: 'silent' }),
          pgSchema: r.pgSchema,
          chain: { replicaLease: { ttlMs: 1_500 } },
        },
      ).then(async (started) => {
        await started.close();
        return 'started';
      });
      await expect(duplicate).rejects.toThrow(/REPLICA_ID 1 is in use on this chain by another live process/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    expect(b.services.chain.lease!.held).toBe(true);
    expect((await zeroTransfer(b, randomOwner())).success).toBe(true);
  });

  it('a replica whose lease another process took sends nothing (503, /readyz) until the lease is its own again', async () => {
    const a = r.servers[0]!;
    const lease = a.services.chain.lease!;
    const leases = new LeaseStore(a.services.database.db);
    const readiness = async () => {
      const res = await fetch(`${a.url}/readyz`, {
        headers: { authorization: `Bearer ${REPLICA_ADMIN_KEY}` },
      });
      return {
        status: res.status,
        checks: ((await res.json()) as { checks: Record<string, string> }).checks,
      };
    };
    // A process with replica 0's id took its lease (this one stalled past it, or a duplicate was started).
    await leases.takeOver(lease.name, 'another process', 60_000);
    await lease.renew();
    const owner = randomOwner();
    const client = a.services.chain.gateway.client;
    const relayer = a.services.chain.telemetry.relayerAddress;
    const sentBefore = await client.getTransactionCount({ address: relayer, blockTag: 'pending' });
    await expect(zeroTransfer(a, owner)).rejects.toMatchObject({ status: 503, code: 'chain_unavailable' });
    expect(await client.getTransactionCount({ address: relayer, blockTag: 'pending' })).toBe(sentBefore);
    const fenced = await readiness();
    expect(fenced.status).toBe(503);
    expect(fenced.checks.replica_lease).toMatch(/REPLICA_ID 0 is held by another process/);

    await leases.release(lease.name, 'another process');
    await lease.renew();
    expect((await zeroTransfer(a, owner)).success).toBe(true);
    expect(await readiness()).toMatchObject({ status: 200, checks: { replica_lease: 'ok' } });
  });
});

describe('RELAYER_PRIVATE_KEYS on the embedded chain', () => {
  const keys = [generatePrivateKey(), generatePrivateKey()];
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RELAYER_PRIVATE_KEYS: keys.join(','), REPLICA_ID: '1' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("funds every listed key at start and bundles with the replica's own", async () => {
    const { chain } = server.services;
    const [first, own] = keys.map((k) => privateKeyToAccount(k).address) as [`0x${string}`, `0x${string}`];
    expect(chain.telemetry.relayerAddress).toBe(own);
    for (const address of [first, own]) {
      expect(await chain.gateway.nativeBalance(address)).toBe(parseEther('100'));
    }
    const owner = randomOwner();
    const result = await chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(owner.address, 0n)],
    });
    expect(result.success).toBe(true);
    const tx = await chain.gateway.client.getTransaction({ hash: result.txHash });
    expect(tx.from.toLowerCase()).toBe(own.toLowerCase());
  });
});
