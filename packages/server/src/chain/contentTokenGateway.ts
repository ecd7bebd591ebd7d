import { dauthContentTokenAbi } from '@dauth/contracts';
import {
  keccak256,
  parseEventLogs,
  stringToBytes,
  toEventSelector,
  type Log,
  type TransactionReceipt,
} from 'viem';
import { OperationReverted } from '../errors.js';
import { sameAddress } from './address.js';
import { atGateway } from './chainErrors.js';
import type { ChainGateway } from './chainGateway.js';
import type { ContractCalls } from './contractCalls.js';
import type { OperatorWallet } from './operations/operatorWallet.js';
import type { OperationResult } from './operations/pendingOperation.js';
import { waitForReceipt } from './waitForReceipt.js';
import type {
  ChainWrite,
  FoundPurchase,
  FoundRelease,
  ProviderOnChain,
  PurchaseOnChain,
  RecordedBatch,
  RecordedUsage,
  SlotFigures,
  UsageBatch,
} from './contentTokenTypes.js';
import type { Address, Call, Hash } from './types.js';

/**
 * Gas of one `recordUsage` record whose slot the call has not touched yet (cold SLOAD + SSTORE of the packed
 * balance/used word ≈ 5,000, the `UsageRecorded` event ≈ 2,300, the loop), with room to spare.
 */
const GAS_PER_USAGE_RECORD = 40_000n;
/**
 * Gas of a further record of a slot the same call already wrote (warm SLOAD and SSTORE of a dirty word: 100
 * each, the event ≈ 2,300, the loop): a full batch measured ≈ 4,070 a record on chain, calldata included,
 * ≈ 3,560 without it (`test/content/usageBatchKey.test.ts` keeps this bound between 1.5× and 2× of it). Not more
 * room than that: a bundle must ask its last operation's whole limit (the EntryPoint starts an operation's
 * call only with its whole `callGasLimit` left), and a block holds bundles by what they ask. At 15,000 a
 * 400-record batch asked 3.7× what it used and a 2-second block took about 3,600 records; at 7,000 about
 * 4,900 (docs/performance-content.md, round 6).
 */
export const GAS_PER_REPEATED_USAGE_RECORD = 7_000n;
/**
 * Per `recordUsage` call and per operation (executeBatch, calldata copying, the cuid check, the batch key, the
 * cuid's unsettled-usage total: up to 22,100 when it goes from zero).
 */
const GAS_PER_USAGE_CALL = 110_000n;

/** keccak256 of the cuid's UTF-8 bytes: how the contract keys cuids in storage and events. */
export const cuidHashOf = (cuid: string): Hash => keccak256(stringToBytes(cuid));

/** The `batchKey` under which `recordUsage` records a batch once, from the batch's id (a UUID). */
export const usageBatchKeyOf = (batchId: string): Hash =>
  keccak256(stringToBytes(`dauth.content-usage-batch:${batchId}`));

/**
 * The DauthContentToken contract, in the chain layer's own types (`contentTokenTypes.ts`): writes through
 * the platform operator wallet (sponsored operations bundled by the chain layer), reads through the
 * gateway, event figures from receipts. Failures arrive already translated at the gateway boundary; a
 * refused write is `OperationReverted` carrying the contract's custom error and its arguments. It fits the
 * content services' `ContentTokenChain` port, which the composition root checks where it plugs it in.
 */
export class ContentTokenGateway {
  readonly contentToken: Address;

  constructor(
    private readonly gateway: ChainGateway,
    private readonly operator: OperatorWallet,
    private readonly calls: ContractCalls,
  ) {
    this.contentToken = gateway.contracts.content_token;
  }

  async #operate(calls: Call[], callGasLimit?: bigint, nonceKey?: bigint): Promise<OperationResult> {
    const result = await this.operator.execute(calls, {
      ...(callGasLimit !== undefined ? { callGasLimit } : {}),
      ...(nonceKey !== undefined ? { nonceKey } : {}),
    });
    if (!result.success) {
      throw OperationReverted.included(result);
    }
    return result;
  }

  #write(result: OperationResult): ChainWrite {
    return { txHash: result.txHash, blockNumber: result.blockNumber, userOpHash: result.userOpHash };
  }

  async #receipt(txHash: Hash): Promise<TransactionReceipt> {
    return waitForReceipt(this.gateway.client, txHash, { timeoutMs: 30_000 });
  }

  /** This contract's events named `eventName` (one name or several) among `logs`, decoded. */
  #events<
    N extends 'UsageRecorded' | 'UsageBatchRecorded' | 'ContentTokenBought' | 'Released' | 'PoolFunded',
  >(logs: readonly Log[], eventName: N | N[]) {
    const ours = logs.filter((l) => sameAddress(l.address, this.contentToken));
    return parseEventLogs({ abi: dauthContentTokenAbi, logs: ours, eventName });
  }

  async registerProvider(input: {
    clientId: string;
    cuid: string;
    releasePer: number;
    ownerAddr: Address;
  }): Promise<ChainWrite> {
    const result = await this.#operate([
      this.calls.platform('contentToken', 'registerProvider', [
        input.clientId,
        input.cuid,
        input.releasePer,
        input.ownerAddr,
      ]),
    ]);
    return this.#write(result);
  }

  async setReleaseEnabled(cuid: string, enabled: boolean): Promise<ChainWrite> {
    return this.#write(
      await this.#operate([this.calls.platform('contentToken', 'setReleaseEnabled', [cuid, enabled])]),
    );
  }

  async fundPool(cuid: string, amount: bigint): Promise<ChainWrite & { pool: bigint }> {
    const result = await this.#operate([this.calls.platform('contentToken', 'fundPool', [cuid], amount)]);
    const [funded] = this.#events((await this.#receipt(result.txHash)).logs, 'PoolFunded');
    const pool = funded?.args.pool ?? (await this.gateway.read('contentToken', 'poolOf', [cuid]));
    return { ...this.#write(result), pool };
  }

  async amendTerms(input: {
    cuid: string;
    releasePer: number;
    ownerAddr: Address;
    settle: Address[];
  }): Promise<ChainWrite & { paid: bigint }> {
    const result = await this.#operate([
      this.calls.platform('contentToken', 'amendTerms', [
        input.cuid,
        input.releasePer,
        input.ownerAddr,
        input.settle,
      ]),
    ]);
    return { ...this.#write(result), paid: await this.#paid(input.cuid, result.txHash) };
  }

  async settle(cuid: string, slots: Address[]): Promise<ChainWrite & { paid: bigint }> {
    const result = await this.#operate([this.calls.platform('contentToken', 'settle', [cuid, slots])]);
    return { ...this.#write(result), paid: await this.#paid(cuid, result.txHash) };
  }

  async unsettledUsage(cuid: string): Promise<bigint> {
    return this.gateway.read('contentToken', 'unsettledUsageOf', [cuid]);
  }

  /** Wei the transaction's `Released` events of `cuid` paid. */
  async #paid(cuid: string, txHash: Hash): Promise<bigint> {
    const hash = cuidHashOf(cuid);
    return this.#events((await this.#receipt(txHash)).logs, 'Released')
      .filter((e) => e.args.cuidHash === hash)
      .reduce((sum, e) => sum + e.args.paid, 0n);
  }

  async release(
    cuid: string,
    slot: Address,
  ): Promise<ChainWrite & { usage: bigint; paid: bigint; logIndex: number }> {
    const result = await this.#operate([this.calls.platform('contentToken', 'release', [cuid, slot])]);
    const hash = cuidHashOf(cuid);
    const released = this.#events((await this.#receipt(result.txHash)).logs, 'Released').find(
      (e) => e.args.cuidHash === hash && sameAddress(e.args.slot, slot),
    );
    if (!released) throw new Error(`release transaction ${result.txHash} carries no Released event`);
    return {
      ...this.#write(result),
      usage: released.args.usage,
      paid: released.args.paid,
      logIndex: released.logIndex,
    };
  }

  async recordUsage(batch: UsageBatch): Promise<RecordedBatch> {
    const key = usageBatchKeyOf(batch.id);
    const calls = batch.groups.map((g) =>
      this.calls.platform('contentToken', 'recordUsage', [key, g.cuid, g.slots, g.amounts]),
    );
    // The gas is computed, not estimated: admission control already guarantees every record fits, and an
    // estimate would execute the whole batch several times on the node.
    const gas = batch.groups.reduce((sum, g) => {
      const distinct = BigInt(new Set(g.slots.map((slot) => slot.toLowerCase())).size);
      return (
        sum +
        GAS_PER_USAGE_CALL +
        GAS_PER_USAGE_RECORD * distinct +
        GAS_PER_REPEATED_USAGE_RECORD * (BigInt(g.slots.length) - distinct)
      );
    }, 0n);
    const result = await this.#operate(calls, gas, batch.nonceKey);
    // The built-in bundler hands over the receipt's logs with the result: no second fetch of the receipt.
    const logs = result.logs ?? (await this.#receipt(result.txHash)).logs;
    const events = this.#batchEvents(logs, batch, key);
    if (events) return { write: this.#write(result), events };
    // This send recorded nothing: an earlier one of the same batch had landed. Its figures are the answer.
    const earlier = await this.findUsageBatch(batch);
    if (!earlier.found) {
      throw new Error(
        `usage batch ${batch.id} was recorded before ${result.txHash}, but its logs are not found`,
      );
    }
    return { write: earlier.write, events: earlier.events };
  }

  /**
   * The batch's `UsageRecorded` events in `logs` (one transaction's, in log order), or undefined when that
   * transaction did not record it. Each group's events directly follow its `UsageBatchRecorded` marker, so
   * they are told apart from other batches bundled into the same transaction.
   */
  #batchEvents(logs: readonly Log[], batch: UsageBatch, key: Hash): RecordedUsage[] | undefined {
    // Decoded by hand from the two fixed layouts: viem's `parseEventLogs` hashes every event signature of
    // the ABI again for every log (6.4 ms of CPU per 100-record batch, measured; 8 % of the server's
    // CPU under consumption load, docs/performance-content.md).
    const ours = logs
      .filter(
        (l) =>
          (l.topics[0] === USAGE_RECORDED || l.topics[0] === USAGE_BATCH_RECORDED) &&
          sameAddress(l.address, this.contentToken),
      )
      .sort((a, b) => (a.logIndex ?? 0) - (b.logIndex ?? 0));
    const events: RecordedUsage[] = [];
    for (const group of batch.groups) {
      const hash = cuidHashOf(group.cuid);
      const at = ours.findIndex(
        (l) =>
          l.topics[0] === USAGE_BATCH_RECORDED && sameWord(l.topics[1], key) && sameWord(l.topics[2], hash),
      );
      if (at < 0) {
        if (events.length === 0) return undefined;
        throw new Error(`usage batch ${batch.id}: a transaction recorded only some of its cuids`);
      }
      group.slots.forEach((slot, i) => {
        const log = ours[at + 1 + i];
        const figures = log?.topics[0] === USAGE_RECORDED ? usageFigures(log.data) : undefined;
        if (
          !log ||
          !figures ||
          !sameWord(log.topics[1], hash) ||
          !sameAddress(wordAddress(log.topics[2]), slot) ||
          figures[0] !== group.amounts[i]
        ) {
          throw new Error(
            `usage batch ${batch.id}: the chain's record ${i} of ${group.cuid} differs from it`,
          );
        }
        events.push({ cuidHash: hash, slot, amount: figures[0], balance: figures[1], used: figures[2] });
      });
    }
    return events;
  }

  async findUsageBatch(
    batch: UsageBatch,
    txHint?: Hash,
  ): Promise<({ found: true } & RecordedBatch) | { found: false; pending: boolean }> {
    const key = usageBatchKeyOf(batch.id);
    const [marker] = await atGateway(() =>
      this.gateway.client.getLogs({
        address: this.contentToken,
        event: usageBatchRecordedEvent,
        args: { batchKey: key },
        fromBlock: batch.fromBlock,
        toBlock: 'latest',
      }),
    );
    if (marker?.transactionHash) {
      const receipt = await atGateway(() =>
        this.gateway.client.getTransactionReceipt({ hash: marker.transactionHash }),
      );
      const events = this.#batchEvents(receipt.logs, batch, key);
      if (!events) throw new Error(`usage batch ${batch.id}: ${receipt.transactionHash} lost its marker`);
      return {
        found: true,
        write: { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber },
        events,
      };
    }
    if (txHint) {
      // Still waiting in the node's pool (e.g. put back there when the chain went back): it may land yet.
      const pending = await atGateway(() => this.gateway.client.getTransaction({ hash: txHint })).catch(
        () => undefined,
      );
      if (pending && pending.blockNumber === null) return { found: false, pending: true };
    }
    return { found: false, pending: false };
  }

  async readSlot(cuid: string, slot: Address, blockNumber?: bigint): Promise<SlotFigures> {
    const block =
      blockNumber ?? (await atGateway(() => this.gateway.client.getBlockNumber({ cacheTime: 0 })));
    const read = (functionName: 'balanceOf' | 'usedBalanceOf') =>
      atGateway(() =>
        this.gateway.client.readContract({
          address: this.contentToken,
          abi: dauthContentTokenAbi,
          functionName,
          args: [cuid, slot],
          blockNumber: block,
        }),
      );
    const [balance, used] = await Promise.all([read('balanceOf'), read('usedBalanceOf')]);
    return { balance, used, blockNumber: block };
  }

  async readProvider(cuid: string): Promise<ProviderOnChain | undefined> {
    const [clientId, ownerAddr, releasePer, releaseEnabled, pool] = await this.gateway.read(
      'contentToken',
      'providerOf',
      [cuid],
    );
    if (/^0x0{40}$/.test(ownerAddr)) return undefined;
    return { clientId, ownerAddr, releasePer, releaseEnabled, pool };
  }

  async releasable(cuid: string, slot: Address): Promise<{ usage: bigint; amount: bigint }> {
    const [usage, amount] = await this.gateway.read('contentToken', 'releasableOf', [cuid, slot]);
    return { usage, amount };
  }

  treasury(): Promise<Address> {
    return this.gateway.read('contentToken', 'treasury', []);
  }

  buyCall(cuid: string, slot: Address, value: bigint): Call {
    return this.calls.platform('contentToken', 'buy', [cuid, slot], value);
  }

  async purchaseOf(
    txHash: Hash,
    cuid: string,
    slot: Address,
  ): Promise<PurchaseOnChain & { blockNumber: bigint; logIndex: number }> {
    const receipt = await this.#receipt(txHash);
    const hash = cuidHashOf(cuid);
    const bought = this.#events(receipt.logs, 'ContentTokenBought').find(
      (e) => e.args.cuidHash === hash && sameAddress(e.args.slot, slot),
    );
    if (!bought) throw new Error(`purchase transaction ${txHash} carries no ContentTokenBought event`);
    return {
      amount: bought.args.amount,
      platformFee: bought.args.platformFee,
      providerAmount: bought.args.providerAmount,
      blockNumber: receipt.blockNumber,
      logIndex: bought.logIndex,
    };
  }

  /**
   * The `ContentTokenBought` events of (`cuid`, `slot`) paid by `buyer` from `fromBlock` on, oldest first:
   * how a purchase whose answer a crash cut off is found again (docs/webhooks.md).
   */
  async findPurchases(query: {
    cuid: string;
    slot: Address;
    buyer: Address;
    fromBlock: bigint;
  }): Promise<FoundPurchase[]> {
    const logs = await atGateway(() =>
      this.gateway.client.getLogs({
        address: this.contentToken,
        event: contentTokenBoughtEvent,
        args: { cuidHash: cuidHashOf(query.cuid), slot: query.slot, buyer: query.buyer },
        fromBlock: query.fromBlock,
        toBlock: 'latest',
      }),
    );
    return logs
      .filter((l) => l.transactionHash && l.blockNumber !== null && l.logIndex !== null)
      .map((l) => ({
        txHash: l.transactionHash!,
        blockNumber: l.blockNumber!,
        logIndex: l.logIndex!,
        amount: l.args.amount!,
        platformFee: l.args.platformFee!,
        providerAmount: l.args.providerAmount!,
      }));
  }

  /**
   * The `Released` events of (`cuid`, `slot`) from `fromBlock` on made by `release` (a terms change's
   * settlement, whose transaction also carries `ProviderRegistered`, is left out), oldest first.
   */
  async findReleases(query: { cuid: string; slot: Address; fromBlock: bigint }): Promise<FoundRelease[]> {
    const cuidHash = cuidHashOf(query.cuid);
    const [released, amended] = await Promise.all([
      atGateway(() =>
        this.gateway.client.getLogs({
          address: this.contentToken,
          event: releasedEvent,
          args: { cuidHash, slot: query.slot },
          fromBlock: query.fromBlock,
          toBlock: 'latest',
        }),
      ),
      atGateway(() =>
        this.gateway.client.getLogs({
          address: this.contentToken,
          event: providerRegisteredEvent,
          args: { cuidHash },
          fromBlock: query.fromBlock,
          toBlock: 'latest',
        }),
      ),
    ]);
    const terms = new Set(amended.map((l) => l.transactionHash));
    return released
      .filter((l) => l.transactionHash && l.blockNumber !== null && l.logIndex !== null)
      .filter((l) => !terms.has(l.transactionHash))
      .map((l) => ({
        txHash: l.transactionHash!,
        blockNumber: l.blockNumber!,
        logIndex: l.logIndex!,
        usage: l.args.usage!,
        paid: l.args.paid!,
      }));
  }

  blockNumber(): Promise<bigint> {
    return this.gateway.blockNumber();
  }

  nativeBalance(address: Address): Promise<bigint> {
    return this.gateway.nativeBalance(address);
  }
}

const contentTokenBoughtEvent = dauthContentTokenAbi.find(
  (
    item,
  ): item is Extract<(typeof dauthContentTokenAbi)[number], { type: 'event'; name: 'ContentTokenBought' }> =>
    item.type === 'event' && item.name === 'ContentTokenBought',
)!;

const releasedEvent = dauthContentTokenAbi.find(
  (item): item is Extract<(typeof dauthContentTokenAbi)[number], { type: 'event'; name: 'Released' }> =>
    item.type === 'event' && item.name === 'Released',
)!;

const providerRegisteredEvent = dauthContentTokenAbi.find(
  (
    item,
  ): item is Extract<(typeof dauthContentTokenAbi)[number], { type: 'event'; name: 'ProviderRegistered' }> =>
    item.type === 'event' && item.name === 'ProviderRegistered',
)!;

const usageBatchRecordedEvent = dauthContentTokenAbi.find(
  (
    item,
  ): item is Extract<(typeof dauthContentTokenAbi)[number], { type: 'event'; name: 'UsageBatchRecorded' }> =>
    item.type === 'event' && item.name === 'UsageBatchRecorded',
)!;

const usageRecordedEvent = dauthContentTokenAbi.find(
  (item): item is Extract<(typeof dauthContentTokenAbi)[number], { type: 'event'; name: 'UsageRecorded' }> =>
    item.type === 'event' && item.name === 'UsageRecorded',
)!;
/** topic0 of `UsageRecorded(bytes32 indexed cuidHash, address indexed slot, uint256 amount, uint256 balance, uint256 usedBalance)`. */
const USAGE_RECORDED = toEventSelector(usageRecordedEvent);
/** topic0 of `UsageBatchRecorded(bytes32 indexed batchKey, bytes32 indexed cuidHash, uint256 records)`. */
const USAGE_BATCH_RECORDED = toEventSelector(usageBatchRecordedEvent);

/** Two 32-byte words in hex, compared case-insensitively (an absent topic matches nothing). */
function sameWord(a: string | undefined, b: string): boolean {
  return a !== undefined && a.length === b.length && a.toLowerCase() === b.toLowerCase();
}

/** The address in an indexed topic (its last 20 bytes); empty when the topic is absent or malformed. */
function wordAddress(topic: string | undefined): string {
  return topic?.length === 66 ? `0x${topic.slice(26)}` : '';
}

/** `UsageRecorded`'s data: amount, balance, usedBalance (three uint256 words); undefined when shorter. */
function usageFigures(data: string): [amount: bigint, balance: bigint, used: bigint] | undefined {
  if (data.length < 2 + 64 * 3) return undefined;
  const word = (i: number) => BigInt(`0x${data.slice(2 + 64 * i, 66 + 64 * i)}`);
  return [word(0), word(1), word(2)];
}
