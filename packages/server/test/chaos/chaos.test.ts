import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { dauthContentTokenAbi, dauthDexAbi, dauthTokenAbi } from '@dauth/contracts';
import { type Address, getAddress, type Hash, parseEther } from 'viem';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  buy,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  payloadOf,
  post,
  type Player,
  type Provider,
} from '../content/contentSupport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  type CallbackServer,
  createClient,
  createUser,
  startCallbackServer,
  type TestClient,
} from '../helpers/http.js';
import { getToken, metaAuthorize, rawSlotId } from '../backend/support.js';
import {
  addressOf,
  eventually,
  type FaultNode,
  type FaultyProxy,
  startFaultNode,
  startProxy,
} from '../chain/faults/faultNode.js';
import { freshKeys } from '../chain/chainTestHelpers.js';

/**
 * The chaos suite (issue 29, `npm run test:chaos`): the service on an external anvil with 2-second blocks,
 * reached through an RPC proxy, runs the main flows (sign-up, PIN wallet, faucet, slot, the backend flow
 * (authorize → callback → get_token), token transfer,
 * content purchase, consumption, marketplace sale, release) while a fault injector, at moments drawn from a
 * printed seed, drops the pending transactions, spikes the base fee ×50, reorgs the last 3 blocks and cuts
 * the RPC for 10 s. Afterwards every write that was answered as done is on the final chain exactly once and
 * the ledgers balance. `CHAOS_SEED=<n>` replays a run's schedule; `CHAOS_LOG=<file>` keeps the service's warnings
 * and errors, whole, in that file.
 */
const CHAOS = process.env.DAUTH_CHAOS === '1';
const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** How long the flows run while faults are injected. */
const CHAOS_MS = Number(process.env.CHAOS_MS ?? 75_000);
const WORKERS = 3;
/** The injected reorg replaces this many blocks below the head. */
const REORG_DEPTH = 3n;
const PRICE = parseEther('0.25');

/** mulberry32: a small seeded generator, so a failing schedule can be run again. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type FaultKind = 'drop' | 'spike' | 'reorg' | 'cut';

interface Journey {
  seller?: Player;
  buyer?: Player;
  /** Every step answered 2xx: its ledger is checked to the wei. */
  complete: boolean;
  /** When the journey began and ended (ms since the epoch): was an RPC cut on meanwhile? */
  startedAt: number;
  endedAt: number;
  failures: string[];
  transfer?: { recipient: Address; amount: bigint; answered: boolean };
  /** The slot the backend flow (authorize → callback → get_token) created for the buyer in the studio's app. */
  backendSlotId?: string;
  bought: bigint;
  nativePaid: bigint;
  /** The provider's share of the purchase, paid to its owner address. */
  providerReceived: bigint;
  consumed: bigint;
  sold: boolean;
  released: bigint;
  txHashes: Hash[];
}

describe.skipIf(!CHAOS)('chaos: the main flows under injected chain faults (anvil, 2-second blocks)', () => {
  let node: FaultNode;
  let proxy: FaultyProxy;
  let server: TestServer;
  let provider: Provider;
  /** A studio's backend: the app of the backend flow, and its callback endpoint. */
  let callbacks: CallbackServer;
  let studioApp: TestClient;
  const log: string[] = [];
  /** The RPC cuts' windows (ms since the epoch; `to` is Infinity while one is on). */
  const cuts: { from: number; to: number }[] = [];
  /** Every step that failed was refused with `chain_unavailable` (503, nothing was changed). */
  const refusedForChain = (j: Journey) =>
    !j.complete && j.failures.every((f) => f.includes('"error":"chain_unavailable"'));
  /** Refused for the chain while the RPC was cut: the honest answer, not a journey that should have got through. */
  const refusedDuringCut = (j: Journey) =>
    refusedForChain(j) && cuts.some((cut) => j.startedAt <= cut.to && j.endedAt >= cut.from);
  const note = (line: string) => {
    const stamped = `[chaos +${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`;
    log.push(stamped);
    console.log(stamped);
  };
  let started = Date.now();
  let calmBaseFee = 10n ** 9n;
  /** The service's warnings and errors, counted by message (printed at the end: what the service saw). */
  const serviceLog = new Map<string, number>();
  const countServiceLog = (line: string) => {
    if (process.env.CHAOS_LOG) appendFileSync(process.env.CHAOS_LOG, line);
    const { level, msg, err, reason } = JSON.parse(line) as {
      level: number;
      msg?: string;
      err?: { message?: string };
      reason?: string;
    };
    const why = err?.message ?? reason;
    const key = `${level >= 50 ? 'error' : 'warn'}: ${msg ?? ''}${why ? ` (${why.split('\n')[0]})` : ''}`;
    serviceLog.set(key, (serviceLog.get(key) ?? 0) + 1);
  };

  beforeAll(async () => {
    console.log(`[chaos] seed ${SEED} (CHAOS_SEED=${SEED} replays this schedule)`);
    node = await startFaultNode();
    proxy = await startProxy(node.rpcUrl);
    const keys = freshKeys();
    await node.fund(addressOf(keys.DEPLOYER_PRIVATE_KEY), addressOf(keys.RELAYER_PRIVATE_KEY));
    server = await startTestServer({
      logger: pino({ level: 'warn' }, { write: (line: string) => countServiceLog(line) }),
      env: {
        CHAIN_RPC_URL: proxy.url,
        ...keys,
        RATE_LIMITS: 'login_address=1000/1m,register=1000/1m',
      },
    });
    await node.depositForPaymaster(server.services.chain);
    // On an external chain nothing funds the operator wallet (settlement pools are paid from it).
    await node.fund(server.services.chain.operator.address);
    provider = await newProvider(server, 40);
    callbacks = await startCallbackServer();
    studioApp = await createClient(server.url, await createUser(server.url, 'Studio'), [
      callbacks.url('/dauth/callback'),
    ]);
    // Release enabled and a pool to pay it from (platform switches, admin key).
    for (const [path, body] of [
      ['/v1/admin/content/release', { cuid: provider.cuid, enabled: true }],
      ['/v1/admin/content/pool', { cuid: provider.cuid, amount: parseEther('5').toString() }],
    ] as const) {
      const res = await post(server, path, body, admin(server));
      if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(res.body)}`);
    }
    await node.rpc('anvil_mine', [5]);
    await node.intervalMining(2);
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    await callbacks?.close();
    await proxy?.close();
    await node?.stop();
  });

  async function injector(rng: () => number): Promise<FaultKind[]> {
    // Every kind at least once, in a seeded order at seeded moments, plus two more drawn at random from
    // those that delay answers: a second 10-s RPC cut (seed 1695173942: cuts at 47 and 52 s) has most
    // journeys correctly refused with `chain_unavailable`, which the completion check below cannot tell
    // from a defect.
    const kinds: FaultKind[] = ['drop', 'spike', 'reorg', 'cut'];
    for (let i = 0; i < 2; i++) kinds.push(kinds[Math.floor(rng() * 3)]!);
    const plan = kinds
      .map((kind) => ({ kind, at: 3_000 + rng() * (CHAOS_MS - 20_000) }))
      .sort((a, b) => a.at - b.at);
    note(`plan: ${plan.map((p) => `${p.kind}@${(p.at / 1000).toFixed(1)}s`).join(', ')}`);
    const done: FaultKind[] = [];
    for (const { kind, at } of plan) {
      const wait = started + at - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await inject(kind, rng);
      done.push(kind);
    }
    return done;
  }

  async function inject(kind: FaultKind, rng: () => number): Promise<void> {
    switch (kind) {
      case 'drop': {
        // Whatever is pending right now (waiting up to 4 s for something to be), gone from the pool.
        const deadline = Date.now() + 4_000;
        let hashes: Hash[] = [];
        while (hashes.length === 0 && Date.now() < deadline) {
          const content = (await node.rpc('txpool_content')) as {
            pending: Record<string, Record<string, { hash: Hash }>>;
          };
          hashes = Object.values(content.pending).flatMap((byNonce) =>
            Object.values(byNonce).map((t) => t.hash),
          );
          if (hashes.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        for (const hash of hashes) await node.rpc('anvil_dropTransaction', [hash]);
        note(`drop: ${hashes.length} pending transaction(s) dropped`);
        return;
      }
      case 'spike': {
        // ×50 the base fee of a calm chain (spikes do not compound: each one is 50 times normal).
        const spiked = calmBaseFee * 50n;
        await node.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${spiked.toString(16)}`]);
        note(`spike: next base fee ${spiked} (×50)`);
        return;
      }
      case 'reorg': {
        const head = await node.reader.getBlockNumber({ cacheTime: 0 });
        await node.rpc('anvil_reorg', [Number(REORG_DEPTH), []]);
        // anvil builds the replacement blocks at the fork point's time and its clock stays behind from then on;
        // a real chain's new blocks carry the real time (paymaster windows are checked against it).
        await node.rpc('anvil_setTime', [Math.floor(Date.now() / 1000)]);
        note(`reorg: the last ${REORG_DEPTH} blocks below ${head} replaced by empty ones`);
        return;
      }
      case 'cut': {
        const mode = rng() < 0.5 ? 'hang' : 'error503';
        proxy.mode = mode;
        const window = { from: Date.now(), to: Infinity };
        cuts.push(window);
        note(`cut: the RPC ${mode === 'hang' ? 'hangs' : 'answers 503'} for 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        proxy.mode = 'forward';
        window.to = Date.now();
        note('cut: the RPC answers again');
        return;
      }
    }
  }

  /**
   * Resolves once `wallet` holds at least `wei` and `tokens` (platform ERC-20) at a block deeper than the
   * injected reorg, read from the node itself (2-second blocks: about 8 s after the grant); throws after 120 s:
   * a grant a reorg took right after a ×50 spike waits, in the journal, for the base fee to fall under its cap
   * (≈ 30 blocks, 60 s; seed 569233849 timed out at 60 s).
   */
  async function spendable(wallet: Address, wei: bigint, tokens: bigint, what: string): Promise<void> {
    const token = server.services.chain.info.contracts.token;
    await eventually(
      async () => {
        const head = await node.reader.getBlockNumber({ cacheTime: 0 });
        if (head <= REORG_DEPTH) return false;
        const blockNumber = head - REORG_DEPTH;
        const [native, erc20] = await Promise.all([
          node.reader.getBalance({ address: wallet, blockNumber }),
          node.reader.readContract({
            address: token,
            abi: dauthTokenAbi,
            functionName: 'balanceOf',
            args: [wallet],
            blockNumber,
          }),
        ]);
        return native >= wei && erc20 >= tokens;
      },
      120_000,
      `${what} deeper than the injected reorg`,
    );
  }

  async function journey(index: number): Promise<Journey> {
    const j: Journey = {
      complete: true,
      startedAt: Date.now(),
      endedAt: 0,
      failures: [],
      bought: 0n,
      nativePaid: 0n,
      providerReceived: 0n,
      consumed: 0n,
      sold: false,
      released: 0n,
      txHashes: [],
    };
    const failed = (step: string, detail: unknown) => {
      j.complete = false;
      j.failures.push(
        `${step}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`.slice(0, 300),
      );
    };
    const token = server.services.chain.info.contracts.token;
    try {
      // Sign-up, PIN wallet, faucet (native), slot — for a seller and a buyer.
      j.seller = await newPlayer(server, provider, '1');
      j.buyer = await newPlayer(server, provider, '1');
      const { seller, buyer } = j;

      // The backend flow: the studio's backend gets the buyer's SlotInfo (the slot is written on chain).
      const state = randomBytes(16).toString('base64url');
      const authorized = await metaAuthorize(server.url, buyer.user.token, {
        client_id: studioApp.clientId,
        redirect_uri: callbacks.url('/dauth/callback'),
        respose_type: 'code',
        state,
      });
      if (authorized.status !== 200 || authorized.body.code !== 1)
        return (failed('authorize', authorized.text), j);
      const callback = await callbacks.waitFor(state);
      const slotInfo = await getToken(server.url, {
        client_id: studioApp.clientId,
        client_secret: studioApp.clientSecret,
        code: callback.code,
        grant_type: 'authorization_code',
      });
      if (slotInfo.status !== 200 || slotInfo.body.code !== 1) return (failed('get_token', slotInfo.text), j);
      j.backendSlotId = rawSlotId(slotInfo.text)?.digits;

      // Token transfer: ERC-20 from the faucet, then to a fresh address.
      const granted = await post(
        server,
        '/v1/admin/faucet',
        { address: seller.wallet, token: '1000' },
        admin(server),
      );
      if (granted.status !== 200) return (failed('faucet token', granted.body), j);
      // The funding (both players' native, the seller's ERC-20) is spent next. Like a client that knows its
      // chain reorgs, the journey spends it once it is deeper than the injected reorg: an answered faucet
      // grant that a reorg took (seed 1067953189: two journeys' grants, the journal put them back 2 s later)
      // would otherwise fail the next step honestly (a reverted transfer, insufficient_funds) and count the
      // journey as incomplete without any defect. The grants' own exactly-once is the journal's, tested in
      // test/chain/faults/reorg.test.ts; every later write of the journey stays exposed to every fault.
      await Promise.all([
        spendable(seller.wallet, parseEther('1'), 1000n, "the seller's funding"),
        spendable(buyer.wallet, parseEther('1'), 0n, "the buyer's funding"),
      ]);
      const recipient = getAddress(`0x${randomBytes(20).toString('hex')}`);
      j.transfer = { recipient, amount: 250n, answered: false };
      const sent = await post<{ transaction_hash?: Hash }>(
        server,
        '/v1/token/transfer',
        {
          from_address: seller.wallet,
          to_address: recipient,
          amount: '250',
          contract_address: token,
          ...seller.pin,
        },
        seller.user.token,
      );
      if (sent.status !== 200) return (failed('transfer', sent.body), j);
      j.transfer.answered = true;
      if (sent.body.transaction_hash) j.txHashes.push(sent.body.transaction_hash);

      // Content purchase and two consumptions.
      const bought = await buy(server, provider, seller, '1000');
      if (bought.status !== 200) return (failed('buy', bought.body), j);
      j.bought += BigInt(bought.body.token_amount);
      j.nativePaid += BigInt(bought.body.native_paid);
      j.providerReceived += BigInt(bought.body.provider_received);
      j.txHashes.push(bought.body.tx_hash as Hash);
      for (const amount of [100n, 50n + BigInt(index)]) {
        const used = await consume(server, {
          encrypted_message: encryptPayload(provider, payloadOf(provider, seller, amount)),
        });
        if (used.status !== 200 || !used.body.success) return (failed('consume', used.body), j);
        j.consumed += amount;
        j.txHashes.push(used.body.tx_hash as Hash);
      }

      // Release of the used balance to the provider's owner address.
      const released = await post<{ released_amount: string; tx_hash: Hash }>(
        server,
        '/v1/development-api/release_used_balance',
        { client_id: provider.clientId, cuid: provider.cuid, slot: seller.slot },
        provider.developer.token,
      );
      if (released.status !== 200) return (failed('release', released.body), j);
      j.released += BigInt(released.body.released_amount);
      j.txHashes.push(released.body.tx_hash);

      // Marketplace sale of the seller's slot to the buyer.
      const listed = await post<{ listing: { id: string } }>(
        server,
        '/v1/market/listings',
        {
          user_id: String(seller.user.uuid),
          client_id: provider.clientId,
          price: PRICE.toString(),
          ...seller.pin,
        },
        seller.user.token,
      );
      if (listed.status !== 201) return (failed('list', listed.body), j);
      const sold = await post<{ tx_hash: Hash }>(
        server,
        `/v1/market/listings/${listed.body.listing.id}/purchase`,
        buyer.pin,
        buyer.user.token,
      );
      if (sold.status !== 200) return (failed('purchase', sold.body), j);
      j.sold = true;
      j.txHashes.push(sold.body.tx_hash);
    } catch (err) {
      failed('journey', (err as Error).message);
    }
    return j;
  }

  it('every answered write is on the final chain exactly once and the ledgers balance', async () => {
    const rng = random(SEED);
    calmBaseFee = (await node.reader.getBlock()).baseFeePerGas ?? calmBaseFee;
    started = Date.now();
    const faults = injector(rng);
    const journeys: Journey[] = [];
    let index = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (Date.now() - started < CHAOS_MS) {
          const j = await journey(index++);
          j.endedAt = Date.now();
          journeys.push(j);
          // Told that the chain is unavailable, a client tries again a moment later (no Retry-After on 503s
          // of the chain): without the pause, a worker refused at once starts dozens of journeys per cut.
          if (refusedForChain(j)) await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      }),
    );
    const injected = await faults;
    proxy.mode = 'forward';
    note(
      `flows: ${journeys.length} journeys, ${journeys.filter((j) => j.complete).length} complete, ` +
        `${journeys.filter(refusedDuringCut).length} refused with chain_unavailable during an RPC cut; ` +
        `faults: ${injected.join(', ')}`,
    );
    for (const [line, count] of [...serviceLog].sort((a, b) => b[1] - a[1]).slice(0, 20))
      note(`service log ×${count}: ${line.slice(0, 300)}`);
    note(
      `RPC proxy: ${proxy.forwarded} requests forwarded, ${proxy.upstreamFailures} not answered by the node` +
        (proxy.lastUpstreamError ? ` (last: ${proxy.lastUpstreamError})` : ''),
    );
    // Failures grouped by text (a run that went wrong repeats one failure dozens of times; CI keeps the tail).
    const failures = new Map<string, number>();
    for (const j of journeys.filter((x) => !x.complete)) {
      const text = j.failures.join('; ');
      failures.set(text, (failures.get(text) ?? 0) + 1);
    }
    for (const [text, count] of failures) note(`incomplete ×${count}: ${text}`);

    // Let the chain settle: the journal rounds run until it holds nothing the chain lacks (a transaction a
    // reorg took while the base fee was spiked waits for the fee to fall under its cap).
    const { journal } = server.services.chain;
    const settleStart = Date.now();
    for (;;) {
      await journal.maintenance.run();
      const open = await journal.sender.journal.unsettled(journal.sender.chainId);
      if (open.length === 0) break;
      if (Date.now() - settleStart > 120_000) {
        note(`not settled after 120 s: ${open.map((e) => `${e.hash} ${e.state}`).join(', ')}`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    note(`settled in ${((Date.now() - settleStart) / 1000).toFixed(1)} s (seed ${SEED})`);

    const { contracts } = server.services.chain.info;
    const reader = node.reader;
    const contentOf = async (slot: Address) => {
      const [balance, used] = await Promise.all([
        reader.readContract({
          address: contracts.content_token,
          abi: dauthContentTokenAbi,
          functionName: 'balanceOf',
          args: [provider.cuid, slot],
        }),
        reader.readContract({
          address: contracts.content_token,
          abi: dauthContentTokenAbi,
          functionName: 'usedBalanceOf',
          args: [provider.cuid, slot],
        }),
      ]);
      return { balance, used };
    };

    // Every answered transaction is on the final chain, succeeded, in a canonical block.
    const hashes = journeys.flatMap((j) => j.txHashes);
    for (const hash of new Set(hashes)) {
      const receipt = await reader.getTransactionReceipt({ hash });
      expect(receipt.status, hash).toBe('success');
      expect((await reader.getBlock({ blockNumber: receipt.blockNumber })).hash).toBe(receipt.blockHash);
    }

    let releasedTotal = 0n;
    for (const j of journeys) {
      releasedTotal += j.released + j.providerReceived;
      if (j.transfer) {
        const got = await reader.readContract({
          address: contracts.token,
          abi: dauthTokenAbi,
          functionName: 'balanceOf',
          args: [j.transfer.recipient],
        });
        // Answered: exactly once. Not answered (a 5xx under a fault): at most once, never twice.
        if (j.transfer.answered) expect(got).toBe(j.transfer.amount);
        else expect([0n, j.transfer.amount]).toContain(got);
      }
      if (!j.seller) continue;
      const content = await contentOf(j.seller.slot);
      if (j.complete) {
        expect(content.balance + content.used).toBe(j.bought);
        expect(content.used).toBe(j.consumed);
        const owner = await reader.readContract({
          address: contracts.dex,
          abi: dauthDexAbi,
          functionName: 'ownerOf',
          args: [BigInt(j.seller.slotId)],
        });
        expect(owner).toBe(j.buyer!.wallet);
        // The backend flow's slot is on the final chain, the buyer's.
        const backendSlotOwner = await reader.readContract({
          address: contracts.dex,
          abi: dauthDexAbi,
          functionName: 'ownerOf',
          args: [BigInt(j.backendSlotId!)],
        });
        expect(backendSlotOwner).toBe(j.buyer!.wallet);
        // Sponsored gas: the seller's wallet moved by exactly what it paid for content and got for the slot.
        expect(await reader.getBalance({ address: j.seller.wallet })).toBe(
          parseEther('1') - j.nativePaid + PRICE,
        );
        expect(await reader.getBalance({ address: j.buyer!.wallet })).toBe(parseEther('1') - PRICE);
      } else {
        expect(content.balance + content.used).toBeGreaterThanOrEqual(j.bought);
        expect(content.used).toBeGreaterThanOrEqual(j.consumed);
      }
    }
    // The provider's owner got its share of each answered purchase and each answered release, once.
    const ownerBalance = await reader.getBalance({ address: provider.ownerAddr });
    if (journeys.every((j) => j.complete)) expect(ownerBalance).toBe(releasedTotal);
    else expect(ownerBalance).toBeGreaterThanOrEqual(releasedTotal);
    // Most journeys must have got through: faults delay answers, they do not stop the service. A journey
    // refused with `chain_unavailable` while the RPC was cut got the right answer and is not counted (seed
    // 1529741852: a 503 cut refused each worker's journeys at once, ≈ 100 of them in its 10 s).
    const counted = journeys.filter((j) => !refusedDuringCut(j));
    expect(
      counted.filter((j) => j.complete).length,
      `complete journeys of ${counted.length} not refused during a cut (CHAOS_SEED=${SEED} replays this schedule)`,
    ).toBeGreaterThanOrEqual(Math.ceil(counted.length / 2));
    expect(injected).toEqual(expect.arrayContaining(['drop', 'spike', 'reorg', 'cut']));
  }, 480_000); // 75 s of journeys, a last journey's funding wait (≤ 120 s) and the settling (≤ 120 s)
});
