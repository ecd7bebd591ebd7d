import fs from 'node:fs';
import path from 'node:path';
import { type AnvilInstance, getFreePort, startAnvil } from '@dauth/contracts';
import type { Logger } from 'pino';
import { keccak256 } from 'viem';
import { ChainOwnerLock } from './chainOwnerLock.js';
import { DEV_CHAIN_ID } from './devAccounts.js';
import { DirectRpc, SMALL_ANSWER_BYTES } from './directRpc.js';
import { replaceFileDurably } from './durableFile.js';
import {
  genesisTimePath,
  isWholeDump,
  lastGoodDumpPath,
  putStateAside,
  readGenesisTime,
  restoreLastGoodDump,
  type StateAsideLabel,
  swapInLastGoodDump,
} from './stateDump.js';
import type { Hex } from './types.js';

export { ChainInUseError } from './chainOwnerLock.js';

export interface EmbeddedChainOptions {
  /** DATA_DIR; the chain lives in `DATA_DIR/chain/`. */
  dataDir: string;
  logger: Logger;
  /** Seconds between anvil's periodic state dumps (besides the dump on exit), 5 by default. */
  stateIntervalSeconds?: number;
  /** How often the watchdog checks that anvil answers, 1000 ms by default. */
  watchdogIntervalMs?: number;
  /** Blocks with transactions anvil keeps (bounds the state file), 2000 by default. */
  transactionBlockKeeper?: number;
  /** Block states anvil keeps for reads at past blocks (1,000); older blocks' states cannot be read. */
  historyStates?: number;
  /**
   * Every transaction sent to this chain is journaled (the chain journal is on). A state file anvil cannot
   * start from, when no complete dump was kept (none is before the journal's first round keeps one, and the
   * journal is compacted only up to a kept dump), is then put aside and the chain started anew at its genesis:
   * the journal's startup recovery gives every transaction back. Without it such a start is refused.
   */
  journaled?: boolean;
  /**
   * The DATA_DIR's owner lock when the process took it before anything else (the service does, so a
   * second start is refused before it touches the database); otherwise `launch` takes it.
   */
  lock?: ChainOwnerLock;
}

/**
 * The embedded development chain: anvil from `@foundry-rs/anvil` as a child process on a loopback port,
 * its state in `DATA_DIR/chain/state.json` (loaded at start, dumped every few seconds and on exit), so a
 * restart keeps every balance and wallet.
 *
 * A watchdog checks that anvil answers. If it stops answering while it should run (it crashed or was
 * killed), the watchdog starts it again on the same port from its state file and calls `onRestart`, so
 * the service recovers without a restart of its own.
 */
export class EmbeddedChain {
  readonly chainId = DEV_CHAIN_ID;
  readonly statePath: string;
  /** The pid of the anvil this process runs, so a next owner can stop it if it outlived us. */
  readonly anvilPidPath: string;
  readonly rpcUrl: string;
  /** Called after the watchdog restarted anvil (caches of chain state must be dropped). */
  onRestart: (() => Promise<void>) | undefined;

  /** The owner lock, when `launch` took it itself (a lock handed in stays with whoever took it). */
  #ownLock: ChainOwnerLock | undefined;
  #instance: AnvilInstance | undefined;
  #running = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #checking = false;
  #failures = 0;
  #restarting: Promise<void> | undefined;
  /** The watchdog's kept-alive connection: a `fetch` a second was a visible share of an idle server's CPU. */
  readonly #probe: DirectRpc;
  readonly #options: Required<Omit<EmbeddedChainOptions, 'logger' | 'lock'>> & { logger: Logger };

  private constructor(
    readonly port: number,
    options: EmbeddedChainOptions,
  ) {
    this.#options = {
      stateIntervalSeconds: 5,
      watchdogIntervalMs: 1_000,
      transactionBlockKeeper: 2_000,
      historyStates: 1_000,
      journaled: false,
      ...options,
    };
    this.statePath = path.join(options.dataDir, 'chain', 'state.json');
    this.anvilPidPath = path.join(options.dataDir, 'chain', 'anvil.pid');
    this.rpcUrl = `http://127.0.0.1:${port}`;
    this.#probe = new DirectRpc(this.rpcUrl, { timeoutMs: 2_000, maxAnswerBytes: SMALL_ANSWER_BYTES });
  }

  /** Starts anvil on a free loopback port; `hadState` tells whether it resumed an earlier chain. */
  static async launch(options: EmbeddedChainOptions): Promise<{ chain: EmbeddedChain; hadState: boolean }> {
    const chain = new EmbeddedChain(await getFreePort('127.0.0.1'), options);
    fs.mkdirSync(path.dirname(chain.statePath), { recursive: true });
    // Two anvils on one state file would overwrite each other's dumps: one process owns the chain.
    if (!options.lock?.held) chain.#ownLock = await ChainOwnerLock.acquire(path.dirname(chain.statePath));
    const hadState = fs.existsSync(chain.statePath);
    options.logger.info(
      { statePath: chain.statePath },
      hadState ? 'starting the embedded chain from its saved state' : 'starting a new embedded chain',
    );
    try {
      await stopOrphanAnvil(chain.anvilPidPath, chain.statePath, options.logger);
      await chain.start();
    } catch (err) {
      chain.#ownLock?.release();
      throw err;
    }
    return { chain, hadState };
  }

  get running(): boolean {
    return this.#running;
  }

  /** Starts anvil (if stopped) and the watchdog. */
  async start(): Promise<void> {
    if (this.#closed) throw new Error('the embedded chain was closed');
    if (!this.#instance) this.#instance = await this.#spawn();
    this.#running = true;
    this.#failures = 0;
    this.#timer ??= setInterval(() => void this.#check(), this.#options.watchdogIntervalMs);
    this.#timer.unref();
  }

  /** Stops anvil on purpose (its state is dumped); the watchdog leaves it stopped until `start()`. */
  async stop(): Promise<void> {
    this.#running = false;
    // A restart in progress must finish first, or the anvil it starts would outlive us.
    await this.#restarting;
    const instance = this.#instance;
    this.#instance = undefined;
    if (instance) await this.#stopMining();
    await instance?.stop();
  }

  /**
   * anvil's dump on exit can catch a block half-written: its state (balances, nonces, storage) with the block's
   * transactions applied, but not the block itself, so after a restart the chain has effects without their
   * transaction, receipt or logs (11 stops in 100 under a stream of transfers, measured; a usage batch then
   * read as recorded on chain with no event to settle it from). With automine off nothing is mined while the
   * dump runs; a transaction accepted after that is lost as before, which the relayer's follow and the
   * journal already handle. A node that does not answer is stopped as it is.
   */
  async #stopMining(): Promise<void> {
    try {
      await this.#probe.call('evm_setAutomine', [false]);
      // One more block, mined on demand, is written only after the block the miner may still be writing (a
      // plain read is not: 2 stops in 280 were still caught mid-block); it also keeps what the pool holds.
      await this.#probe.call('evm_mine', []);
    } catch {
      // Already dead or hung: its last dump is what there is.
    }
  }

  /** Stops anvil and the watchdog for good. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.stop();
    this.#probe.close();
    this.#ownLock?.release();
    this.#options.logger.info({ statePath: this.statePath }, 'embedded chain stopped; state saved');
  }

  async #spawn(): Promise<AnvilInstance> {
    const instance = await this.#startAnvil();
    fs.writeFileSync(this.anvilPidPath, String(instance.pid));
    return instance;
  }

  async #startAnvil(): Promise<AnvilInstance> {
    if (!fs.existsSync(this.statePath)) return this.#startWithoutState();
    return this.#wholeBlocksOrLastGood(await this.#startAnvilFromADump());
  }

  /**
   * A chain without a state file: a new chain, whose genesis time is kept beside it (`chain/genesis.json`), or
   * one started anew (its state put aside, or anvil killed before its first dump), which gets that genesis time
   * back, so the journal replays its blocks at their original times (paymaster and session-key windows were
   * checked against them; the replay cannot go below its genesis). The clock is then set to now, as for any
   * start: the replay sets it back to each lost block's time itself, and with nothing to replay the chain must not
   * live in the past. Best effort: without a recorded time the replayed blocks get the restart's.
   */
  async #startWithoutState(): Promise<AnvilInstance> {
    const genesis = readGenesisTime(this.statePath);
    if (genesis !== undefined) {
      const instance = await this.#startAnvilOnce(['--timestamp', String(genesis)]);
      try {
        await this.#probe.call('anvil_setTime', [Math.floor(Date.now() / 1000)]);
      } catch (err) {
        await instance.stop();
        throw err;
      }
      return instance;
    }
    const instance = await this.#startAnvilOnce();
    try {
      const block = (await this.#probe.call('eth_getBlockByNumber', ['0x0', false])) as { timestamp: Hex };
      const timestamp = Number(BigInt(block.timestamp));
      await replaceFileDurably(genesisTimePath(this.statePath), JSON.stringify({ timestamp }));
    } catch (err) {
      this.#options.logger.warn({ err }, "could not record the embedded chain's genesis time");
    }
    return instance;
  }

  /**
   * A killed anvil restarts from its last periodic dump, which (like the dump on exit, see `#stopMining`) may
   * hold a block's state without the block. Its state root then differs from its head block's: the state is
   * put aside (`state.json.inconsistent-<ms>`) and the last good copy started instead, the chain journal
   * giving back every block after it byte for byte (on the state ahead of its blocks, the replay of the lost
   * block found its nonces used and could not give its transactions back). Without a copy the journal holds every
   * transaction, so the chain starts anew (`#startAnew`); with the journal off too, or when the copy disagrees
   * too, the chain starts as it is and the log says so.
   */
  async #wholeBlocksOrLastGood(instance: AnvilInstance): Promise<AnvilInstance> {
    const { logger } = this.#options;
    if ((await stateMatchesHead(instance.rpcUrl)) !== false) return instance;
    const copyKept = fs.existsSync(lastGoodDumpPath(this.statePath));
    if (!copyKept && !this.#options.journaled) {
      logger.error(
        { statePath: this.statePath },
        "the embedded chain's saved state holds effects of a block it does not have, and no earlier dump was kept",
      );
      return instance;
    }
    // Killed, not stopped: a dump on exit would write the same state again.
    process.kill(instance.pid, 'SIGKILL');
    await instance.stop();
    if (!copyKept) return this.#startAnew('inconsistent');
    const aside = swapInLastGoodDump(this.statePath, 'inconsistent');
    logger.error(
      { statePath: this.statePath, aside },
      "the embedded chain's saved state holds effects of a block it does not have; starting from the last good dump, the journal gives back the rest",
    );
    const fresh = await this.#startAnvilOnce();
    if ((await stateMatchesHead(fresh.rpcUrl)) === false) {
      logger.error(
        { statePath: this.statePath },
        'the last good dump holds effects of a block it does not have too',
      );
    }
    return fresh;
  }

  async #startAnvilFromADump(): Promise<AnvilInstance> {
    try {
      return await this.#startAnvilOnce();
    } catch (err) {
      // Killed during one of anvil's in-place dumps: start from the last complete dump the service kept;
      // the journal holds every transaction after it (docs/chain.md, "A dump cut short").
      const damaged = restoreLastGoodDump(this.statePath);
      if (damaged === undefined) {
        // Nothing restored from a file that is there and not whole: no copy was kept.
        if (this.#options.journaled && fs.existsSync(this.statePath) && !isWholeDump(this.statePath))
          return this.#startAnew('damaged');
        throw err;
      }
      this.#options.logger.error(
        { statePath: this.statePath, damaged, err },
        "the embedded chain's state file was cut short; starting from the last complete dump, the journal gives back the rest",
      );
      return await this.#startAnvilOnce();
    }
  }

  /**
   * No kept dump to fall back on, and every transaction journaled since the chain began: the state file is put
   * aside and the chain started anew at its genesis, the journal's recovery giving back every block
   * (docs/chain.md, "Before any dump was kept").
   */
  async #startAnew(label: StateAsideLabel): Promise<AnvilInstance> {
    const aside = putStateAside(this.statePath, label);
    this.#options.logger.error(
      { statePath: this.statePath, aside },
      "the embedded chain's state file cannot be used and no complete dump was kept; starting the chain anew, the journal gives every transaction back",
    );
    return this.#startWithoutState();
  }

  async #startAnvilOnce(extraArgs: readonly string[] = []): Promise<AnvilInstance> {
    try {
      return await startAnvil({
        port: this.port,
        statePath: this.statePath,
        chainId: this.chainId,
        args: [
          ...extraArgs,
          '--state-interval',
          String(this.#options.stateIntervalSeconds),
          '--transaction-block-keeper',
          String(this.#options.transactionBlockKeeper),
          // The last N blocks' states in memory and none spilled to disk: anvil's default writes every
          // state past its 500th to a temp file, which made each replayed block slower than the one before
          // (docs/chain.md, "Replay rate").
          '--prune-history',
          String(this.#options.historyStates),
        ],
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(
        `The embedded chain did not start (${reason.slice(0, 300)}). If its state file ${this.statePath} ` +
          'is damaged, move it away to start a fresh chain.',
        { cause: err },
      );
    }
  }

  async #check(): Promise<void> {
    if (!this.#running || this.#checking || this.#closed) return;
    this.#checking = true;
    try {
      const answer = await probeRpc(this.#probe);
      if (answer === 'ok') {
        this.#failures = 0;
        return;
      }
      // A dead process refuses connections at once; a busy one is only slow. Restart a refusing anvil
      // after 3 checks, and one that accepts but never answers only after 15 (it may be dumping state).
      this.#failures += answer === 'refused' ? 5 : 1;
      if (this.#failures < 15 || !this.#running) return;
      this.#restarting = this.#restart();
      await this.#restarting;
    } catch (err) {
      this.#options.logger.error({ err }, 'embedded chain restart failed; retrying');
    } finally {
      this.#restarting = undefined;
      this.#checking = false;
    }
  }

  async #restart(): Promise<void> {
    const { logger } = this.#options;
    logger.warn(
      { rpcUrl: this.rpcUrl },
      'embedded chain stopped answering; restarting it from its saved state',
    );
    const old = this.#instance;
    this.#instance = undefined;
    await old?.stop();
    const fresh = await this.#spawn();
    if (!this.#running || this.#closed) {
      await fresh.stop();
      return;
    }
    this.#instance = fresh;
    this.#failures = 0;
    logger.info({ rpcUrl: this.rpcUrl }, 'embedded chain restarted');
    await this.onRestart?.();
  }
}

/**
 * Whether the node's state is the state its head block says it is: the root of an account proof (any account:
 * the proof's first node is the state trie's root) against the head's `stateRoot`. Undefined when it cannot
 * tell (no answer, no proof): a start is never held up by the check. At the genesis block it holds: nothing was
 * mined, so no block can be missing, and anvil gives its genesis block the empty trie's root whatever the
 * genesis accounts hold (a fresh chain read "ahead of its blocks" and logged an error at every first start).
 */
export async function stateMatchesHead(rpcUrl: string): Promise<boolean | undefined> {
  const node = new DirectRpc(rpcUrl, { timeoutMs: 30_000 });
  try {
    const [head, proof] = await node.batch([
      { method: 'eth_getBlockByNumber', params: ['latest', false] },
      { method: 'eth_getProof', params: [ZERO_ADDRESS, [], 'latest'] },
    ]);
    if (!head || !proof || 'error' in head || 'error' in proof) return undefined;
    const block = head.result as { number?: string; stateRoot?: string } | null;
    if (block?.number !== undefined && BigInt(block.number) === 0n) return true;
    const stateRoot = block?.stateRoot;
    const root = (proof.result as { accountProof?: Hex[] } | null)?.accountProof?.[0];
    if (!stateRoot || !root) return undefined;
    return keccak256(root) === stateRoot.toLowerCase();
  } catch {
    return undefined;
  } finally {
    node.close();
  }
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export type RpcProbe = 'ok' | 'refused' | 'timeout';

/** Whether a JSON-RPC node answers `eth_chainId` within the client's timeout, refuses, or stays silent. */
export async function probeRpc(node: DirectRpc): Promise<RpcProbe> {
  try {
    // `read`: asked again on a new connection if anvil closed the kept-alive one while it idled.
    await node.read('eth_chainId', []);
    return 'ok';
  } catch (err) {
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    return code === 'ECONNREFUSED' ? 'refused' : 'timeout';
  }
}

/**
 * An anvil whose owner was killed alone (not with its process group: the OOM killer, `kill -9 <pid>`)
 * lives on and keeps dumping its state every few seconds, over the dumps of the anvil the next owner
 * starts. The next owner, holding the lock, so knowing the old owner is dead, stops it: by SIGTERM first,
 * which makes anvil dump its newest state (the dead owner's last transactions), then SIGKILL. It is
 * recognised by its pid file and, on Linux, its command line naming our state file, so a pid reused by
 * another process is never signalled; elsewhere nothing is signalled.
 */
async function stopOrphanAnvil(pidPath: string, statePath: string, logger: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidPath, 'utf8').trim());
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isOurAnvil(pid, statePath)) return;
  logger.warn({ pid }, 'an anvil of a killed dauth still runs on this DATA_DIR; stopping it');
  signal(pid, 'SIGTERM');
  for (let waited = 0; waited < 10_000 && isOurAnvil(pid, statePath); waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (isOurAnvil(pid, statePath)) signal(pid, 'SIGKILL');
}

function isOurAnvil(pid: number, statePath: string): boolean {
  try {
    // A zombie's cmdline is empty; an unrelated process's does not name our state file.
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return path.basename(args[0] ?? '') === 'anvil' && args.includes(statePath);
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}
