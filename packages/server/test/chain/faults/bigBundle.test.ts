import { erc20Abi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserOperationRejectedError } from '../../../src/chain/chainErrors.js';
import type { OperationResult } from '../../../src/chain/operations/pendingOperation.js';
import { PaymasterSponsor, sponsorshipWindow } from '../../../src/chain/operations/sponsorship.js';
import {
  bundledOperations,
  contractSettings,
  freshKeys,
  impostor,
  randomOwner,
  startTestChain,
  type TestChain,
} from '../chainTestHelpers.js';
import { addressOf, eventually, type FaultNode, operationCount, startFaultNode } from './faultNode.js';

/** More than the bundler's old count cap (64): operations queued behind a pending bundle. */
const CALLERS = 100;

/**
 * A slow chain fills a bundle by gas, not by a count cap. The chain mines a block every 2 seconds, with a
 * block gas limit of 60M (a 100-transfer bundle's gas bound is about 30M, more than 9/10 of anvil's default
 * 30M). While one bundle waits for its block, 100 sponsored ERC-20 transfers of 100 wallets and one
 * operation the EntryPoint refuses queue behind it; the next block's bundle carries the 100 in one
 * `handleOps`, each caller gets its own result, and the refused one its typed error.
 */
describe('a bundle on a slow chain is bounded by gas, not by a count of 64', () => {
  let node: FaultNode;
  let service: TestChain;
  const keys = freshKeys();
  /** Paymaster signatures (one per signing of an operation), by wallet. */
  const signings = new Map<string, number>();

  beforeAll(async () => {
    node = await startFaultNode({ args: ['--gas-limit', '60000000'] });
    await node.fund(addressOf(keys.DEPLOYER_PRIVATE_KEY), addressOf(keys.RELAYER_PRIVATE_KEY));
    service = await startTestChain({
      env: { CHAIN_RPC_URL: node.rpcUrl, ...keys },
      // One bundle in flight: the 100 queued behind the pending one must wait for it and go out together
      // (with several in flight they would go out at once, in bundles of whatever had arrived).
      bundler: { bundlesInFlight: 1 },
      // The platform's own sponsor, counting: every signing of an operation asks it once.
      sponsor: ({ paymaster, chainId }) => {
        // The service's own window: from the earlier of the wall clock and the latest block's time (a held
        // block is older than the wall clock).
        const now = async () => {
          const latest = await node.reader.getBlock({ blockTag: 'latest' });
          return sponsorshipWindow(Math.floor(Date.now() / 1000), Number(latest.timestamp));
        };
        const real = new PaymasterSponsor(
          paymaster,
          chainId,
          privateKeyToAccount(keys.PAYMASTER_SIGNER_PRIVATE_KEY),
          now,
        );
        return {
          paymaster,
          sponsor: (op) => {
            const key = op.sender.toLowerCase();
            signings.set(key, (signings.get(key) ?? 0) + 1);
            return real.sponsor(op);
          },
        };
      },
    });
    await node.depositForPaymaster(service.chain);
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await node?.stop();
  });

  /** The wallets of the first test, funded and deployed; the second sends from them again. */
  const owners = Array.from({ length: CALLERS }, () => randomOwner());

  /**
   * Holds the chain's next block, sends `lead` alone (its bundle then waits in the pool), starts `behind`
   * and waits until all of them are queued in the bundler behind that pending bundle; then blocks come every
   * 2 seconds again.
   */
  async function queueBehindPendingBundle<T>(
    chain: TestChain['chain'],
    lead: () => Promise<OperationResult>,
    behind: () => Promise<T>[],
  ): Promise<{ first: Promise<OperationResult>; rest: Promise<T>[] }> {
    const relayer = chain.telemetry.relayerAddress;
    await node.rpc('evm_setAutomine', [false]);
    await node.rpc('evm_setIntervalMining', [0]);
    const first = lead();
    await node.waitForPending(relayer);
    const rest = behind();
    // The bundler's queue holds the pending operation until its block, and every one behind it.
    await eventually(
      async () => chain.telemetry.queuedOperations() === rest.length + 1,
      60_000,
      `${rest.length} operations queued behind the pending bundle`,
    );
    // Still one transaction pending: nothing behind it went out while it waits for its block.
    expect(await node.pending(relayer)).toHaveLength(1);
    await node.intervalMining(2);
    return { first, rest };
  }

  it('sends 100 queued transfers in one handleOps and takes out the one the EntryPoint refuses', async () => {
    const { chain } = service;
    const token = chain.info.contracts.token;
    const entryPoint = chain.info.contracts.entry_point;
    const bundleSizes: number[] = [];
    chain.telemetry.observeBundles({
      bundleMined: (size) => bundleSizes.push(size),
      bundleFailed: () => undefined,
      operationReverted: () => undefined,
    });

    // Still mining at once: 101 wallets are funded and deployed (their first operation is a no-op call).
    const victim = randomOwner();
    const wallets = owners.map((o) => chain.gateway.walletAddress(o.address, 0n));
    const victimWallet = chain.gateway.walletAddress(victim.address, 0n);
    for (const wallet of [...wallets, victimWallet])
      await chain.faucet.fund({ address: wallet, token: 1_000n });
    await Promise.all(
      [...owners, victim].map((owner) =>
        chain.operations.submitOperation({
          owner,
          salt: 0n,
          calls: [chain.calls.nativeTransfer(owner.address, 0n)],
        }),
      ),
    );
    const victimNonce = await chain.gateway.getNonce(victimWallet);
    expect(victimNonce).toBe(1n);
    signings.clear();

    // From here a block every 2 seconds. One operation of the victim's goes out alone; 100 transfers and
    // one operation the EntryPoint refuses queue behind its pending bundle.
    const recipients = owners.map(() => randomOwner().address);
    const before = bundleSizes.length;
    const { first, rest } = await queueBehindPendingBundle(
      chain,
      () =>
        chain.operations.submitOperation({
          owner: victim,
          salt: 0n,
          calls: [chain.calls.nativeTransfer(victim.address, 0n)],
        }),
      () => [
        ...owners.map((owner, i) =>
          chain.operations.submitOperation({
            owner,
            salt: 0n,
            calls: [chain.calls.erc20Transfer(token, recipients[i]!, BigInt(i + 1))],
          }),
        ),
        // The victim's wallet under its owner's name, signed by a stranger: the EntryPoint refuses it (AA24).
        chain.operations.submitOperation({
          owner: impostor(victim, randomOwner()),
          salt: 0n,
          calls: [chain.calls.erc20Transfer(token, victim.address, 1n)],
        }),
      ],
    );
    const refused = rest.pop()!;
    const transfers = rest;

    const firstResult = await first;
    expect(firstResult.success).toBe(true);
    await expect(refused).rejects.toBeInstanceOf(UserOperationRejectedError);
    await expect(refused).rejects.toMatchObject({
      status: 403,
      code: 'invalid_owner_signature',
      aaCode: 'AA24',
    });
    const results: OperationResult[] = await Promise.all(transfers);

    // One transaction carried all 100 (the old cap of 64 split them in two), and nothing else.
    const txHashes = new Set(results.map((r) => r.txHash));
    expect(txHashes.size).toBe(1);
    expect(bundleSizes.slice(before)).toEqual([1, CALLERS]);
    const [txHash] = [...txHashes];
    const carried = await bundledOperations(chain, txHash!);
    expect(carried).toHaveLength(CALLERS);
    expect(new Set(carried.map((op) => op.sender.toLowerCase()))).toEqual(
      new Set(wallets.map((w) => w.toLowerCase())),
    );
    expect(carried.some((op) => op.sender.toLowerCase() === victimWallet.toLowerCase())).toBe(false);

    // Each caller got its own result: its wallet, its nonce, its own hash, run once, its amount delivered.
    expect(new Set(results.map((r) => r.userOpHash)).size).toBe(CALLERS);
    for (const [i, r] of results.entries()) {
      expect(r).toMatchObject({ success: true, sender: wallets[i], nonce: 1n });
      expect(r.actualGasCost).toBeGreaterThan(0n);
      expect(await operationCount(node, entryPoint, r.userOpHash)).toBe(1);
      const received = await node.reader.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [recipients[i]!],
      });
      expect(received).toBe(BigInt(i + 1));
    }
    // The refused operation changed nothing: the victim's wallet used only the nonce of its first one.
    expect(await chain.gateway.getNonce(victimWallet)).toBe(victimNonce + 1n);
    // Taking it out signed nothing again: each transfer was signed once, the victim's two once each.
    expect(signings.get(victimWallet.toLowerCase())).toBe(2);
    expect(wallets.map((w) => signings.get(w.toLowerCase()))).toEqual(wallets.map(() => 1));
  }, 240_000);

  it('BUNDLE_MAX_OPERATIONS=64 (the old fixed cap) splits the same 100 queued transfers in two bundles', async () => {
    // A second service on the same contracts with its own relayer and the cap set to 64.
    const relayerKey = freshKeys().RELAYER_PRIVATE_KEY;
    await node.fund(addressOf(relayerKey));
    const capped = await startTestChain({
      env: {
        CHAIN_RPC_URL: node.rpcUrl,
        ...keys,
        RELAYER_PRIVATE_KEY: relayerKey,
        ...contractSettings(service.chain.info.contracts),
        BUNDLE_MAX_OPERATIONS: '64',
        // As above: the queued operations wait for the pending bundle.
        BUNDLES_IN_FLIGHT: '1',
      },
    });
    try {
      const { chain } = capped;
      const bundleSizes: number[] = [];
      chain.telemetry.observeBundles({
        bundleMined: (size) => bundleSizes.push(size),
        bundleFailed: () => undefined,
        operationReverted: () => undefined,
      });
      const lead = randomOwner();
      const { first, rest } = await queueBehindPendingBundle(
        chain,
        () =>
          chain.operations.submitOperation({
            owner: lead,
            salt: 0n,
            calls: [chain.calls.nativeTransfer(lead.address, 0n)],
          }),
        () =>
          owners.map((owner) =>
            chain.operations.submitOperation({
              owner,
              salt: 0n,
              calls: [chain.calls.erc20Transfer(chain.info.contracts.token, lead.address, 1n)],
            }),
          ),
      );
      expect((await first).success).toBe(true);
      const results = await Promise.all(rest);
      expect(results.every((r) => r.success && r.nonce === 2n)).toBe(true);
      expect(new Set(results.map((r) => r.txHash)).size).toBe(2);
      expect(bundleSizes).toEqual([1, 64, CALLERS - 64]);
    } finally {
      await capped.close();
    }
  }, 240_000);
});
