/**
 * A session operation signed just after 00:00 UTC, before the chain has a block of the new day. The session
 * signature names its UTC day and the EntryPoint accepts it only inside that day (DauthSessionAccount), while
 * `eth_call` at `latest` runs with the latest block's time: the bundle's simulation saw yesterday and refused
 * "AA22 expired or not due", so the player's first operation of the day answered 422 (seen in CI at 00:00 UTC,
 * test/sponsorship/appSponsorship.test.ts) — on an idle automining chain, until any other transaction mined.
 *
 * The service's clock and the chain's are both moved to a coming midnight (the service's `Date` only, faked in
 * this process; anvil's by `anvil_setTime`), so the test does not wait for one.
 */
import { getAddress } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { chainClient } from '../pin/pinHelpers.js';
import {
  DAY,
  grantedPlayer,
  latestTimestamp,
  type Player,
  rpc,
  tokenBalanceOf,
  tokenTransferApp,
  transferData,
} from './support.js';

const recipient = getAddress(`0x${'ce'.repeat(20)}`);

describe('a session operation at the turn of the UTC day', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  }, 120_000);
  afterAll(async () => {
    vi.useRealTimers();
    await server?.close();
  });
  afterEach(() => vi.useRealTimers());

  /** Moves this process's `Date` and anvil's clock to `at` (Unix seconds); both go on with real time. */
  async function setClocks(at: number) {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(at * 1000);
    await rpc(server, 'anvil_setTime', [at]);
    server.services.chain.gateway.resetCaches();
  }

  const sessionOp = (p: Player) =>
    fetch(`${server.url}/v1/wallet/session-operations`, {
      method: 'POST',
      headers: { ...bearer(p.accessToken), 'content-type': 'application/json' },
      body: JSON.stringify({
        calls: [{ to: server.services.chainInfo.contracts.token, data: transferData(recipient, 5n) }],
      }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));

  /** The operation went through: the 5 tokens moved, in a block of `day` (whose caps it counted against). */
  async function expectTransferredOn(
    day: number,
    op: Awaited<ReturnType<typeof sessionOp>>,
    balance: bigint,
  ) {
    const chain = chainClient(server);
    expect(op.status, JSON.stringify(op.body)).toBe(200);
    expect(await tokenBalanceOf(server, recipient)).toBe(balance + 5n);
    const receipt = await chain.getTransactionReceipt({ hash: op.body.tx_hash as `0x${string}` });
    const block = await chain.getBlock({ blockNumber: receipt.blockNumber });
    expect(Math.floor(Number(block.timestamp) / DAY)).toBe(day);
  }

  it('the first operation after midnight, with the latest block still of yesterday, goes through', async () => {
    const chain = chainClient(server);
    // A midnight a few days on (later than any block so far), and ten minutes before it.
    const midnight = (Math.floor((await latestTimestamp(chain)) / DAY) + 3) * DAY;
    await setClocks(midnight - 600);
    const p = await grantedPlayer(server, (await tokenTransferApp(server)).client);
    const before = await latestTimestamp(chain);
    expect(Math.floor(before / DAY)).toBe(midnight / DAY - 1);

    // 00:00:05: nothing mined since yesterday.
    await setClocks(midnight + 5);
    expect(await latestTimestamp(chain)).toBe(before);
    const balance = await tokenBalanceOf(server, recipient);
    await expectTransferredOn(midnight / DAY, await sessionOp(p), balance);
  }, 60_000);

  it('an operation whose block falls into the next day is signed again for that day', async () => {
    const chain = chainClient(server);
    const midnight = (Math.floor((await latestTimestamp(chain)) / DAY) + 3) * DAY;
    await setClocks(midnight - 600);
    const p = await grantedPlayer(server, (await tokenTransferApp(server)).client);
    await setClocks(midnight - 30);
    // Signed for today (the latest block and the wall clock say 23:59:30); the block that takes it is at 00:00.
    await rpc(server, 'evm_setNextBlockTimestamp', [midnight]);
    const balance = await tokenBalanceOf(server, recipient);
    await expectTransferredOn(midnight / DAY, await sessionOp(p), balance);
  }, 60_000);
});
