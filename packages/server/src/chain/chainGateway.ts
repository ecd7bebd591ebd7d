import {
  dauthAccountAbi,
  dauthAccountFactoryAbi,
  dauthContentTokenAbi,
  dauthDexAbi,
  dauthPaymasterAbi,
  dauthTokenAbi,
  entryPointAbi,
  computeAccountAddress,
  getAccountCreationCode,
  handleOpsAbi,
  type UserOperation,
} from '@dauth/contracts';
import {
  type Abi,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type ContractFunctionReturnType,
  encodeFunctionData,
  erc20Abi,
  getAbiItem,
  numberToHex,
  slice,
  type TransactionReceipt,
} from 'viem';
import { chainUnavailable } from '../errors.js';
import type { ChainClient } from './chainClient.js';
import {
  atGateway,
  isOutsideValidityWindow,
  isRevert,
  isTransportError,
  revertDataOf,
  translateChainError,
} from './chainErrors.js';
import { decodeRevertReason } from './revertReason.js';
import type { HeadReader } from './headReader.js';

const userOperationEventAbi = getAbiItem({ abi: entryPointAbi, name: 'UserOperationEvent' });
import type { Address, ContractAddresses, Hash, Hex } from './types.js';

/** ABIs of the platform contracts, by the names `read` takes. */
export const platformAbis = {
  entryPoint: entryPointAbi,
  accountFactory: dauthAccountFactoryAbi,
  paymaster: dauthPaymasterAbi,
  dex: dauthDexAbi,
  contentToken: dauthContentTokenAbi,
  token: dauthTokenAbi,
} as const;
export type PlatformContract = keyof typeof platformAbis;
type PlatformAbi<C extends PlatformContract> = (typeof platformAbis)[C];
type ReadName<C extends PlatformContract> = ContractFunctionName<PlatformAbi<C>, 'view' | 'pure'>;
type ReadArgs<C extends PlatformContract, F extends ReadName<C>> = ContractFunctionArgs<
  PlatformAbi<C>,
  'view' | 'pure',
  F
>;
type ReadResult<C extends PlatformContract, F extends ReadName<C>> = ContractFunctionReturnType<
  PlatformAbi<C>,
  'view' | 'pure',
  F
>;

/** Where each platform contract's address sits in `ContractAddresses`. */
export const platformAddressKey: Record<PlatformContract, keyof ContractAddresses> = {
  entryPoint: 'entry_point',
  accountFactory: 'account_factory',
  paymaster: 'paymaster',
  dex: 'dex',
  contentToken: 'content_token',
  token: 'token',
};

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * Outcome of simulating `handleOps`: the gas it needs (at most the bound it ran under), or the first
 * operation the EntryPoint refused.
 */
export type BundleSimulation = { ok: true; gas: bigint } | { ok: false; opIndex: number; reason: string };

const FEES_TTL_MS = 2_000;
const TIMESTAMP_TTL_MS = 1_000;

/**
 * The server's one door to the chain: typed reads of the platform contracts, the wallet arithmetic, and the
 * few node calls the operation pipeline needs. Every method translates failures at this boundary (see
 * `chainErrors.ts`): a silent node is `chain_unavailable` (503), a revert a typed error.
 */
export class ChainGateway {
  readonly #deployed = new Set<string>();
  #fees: { value: Promise<Fees>; at: number } | undefined;
  #timestamp: { value: Promise<number>; at: number } | undefined;

  constructor(
    readonly client: ChainClient,
    readonly chainId: number,
    readonly contracts: ContractAddresses,
    /** `DauthAccountFactory.accountImplementation()`: part of every wallet's creation code. */
    readonly accountImplementation: Address,
    /** How the head is polled (`headReader.ts`): the client's `getBlockNumber` unless given a leaner one. */
    private readonly readHead: HeadReader = () => client.getBlockNumber({ cacheTime: 0 }),
  ) {}

  /** Readiness: the node answers (uncached). */
  async probe(): Promise<void> {
    await atGateway(this.readHead);
  }

  /** Forgets cached chain state (after the embedded chain restarted from an older state). */
  resetCaches(): void {
    this.#deployed.clear();
    this.#fees = undefined;
    this.#timestamp = undefined;
  }

  // ----- wallets -----

  /** The counterfactual wallet of (`firstOwner`, `salt`) = factory `getAddress`, computed off-chain. */
  walletAddress(firstOwner: Address, salt: bigint): Address {
    return computeAccountAddress({
      factory: this.contracts.account_factory,
      implementation: this.accountImplementation,
      owner: firstOwner,
      salt,
    });
  }

  /** Runtime code the wallet of `firstOwner` will have once deployed (used to estimate before it is). */
  walletRuntimeCode(firstOwner: Address): Hex {
    return slice(getAccountCreationCode(this.accountImplementation, firstOwner), 10);
  }

  /** True when code is deployed at `address` (positive answers are cached: code does not go away). */
  async isDeployed(address: Address): Promise<boolean> {
    const key = address.toLowerCase();
    if (this.#deployed.has(key)) return true;
    const code = await atGateway(() => this.client.getCode({ address }));
    const deployed = code !== undefined && code !== '0x';
    if (deployed) this.#deployed.add(key);
    return deployed;
  }

  /** Records that `address` now has code (its first operation was mined). */
  markDeployed(address: Address): void {
    this.#deployed.add(address.toLowerCase());
  }

  /** The wallet's owner EOA, or undefined when the wallet is not deployed yet. */
  async walletOwner(wallet: Address): Promise<Address | undefined> {
    if (!(await this.isDeployed(wallet))) return undefined;
    return atGateway(() =>
      this.client.readContract({ address: wallet, abi: dauthAccountAbi, functionName: 'owner' }),
    );
  }

  /**
   * Receipts of the `handleOps` transactions that executed any of `userOpHashes` since `fromBlock`
   * (each executed operation leaves a `UserOperationEvent` indexed by its hash).
   */
  async receiptsOfOperations(userOpHashes: Hash[], fromBlock: bigint): Promise<TransactionReceipt[]> {
    if (userOpHashes.length === 0) return [];
    return atGateway(async () => {
      // A big bundle that was dropped asks for hundreds of hashes: a few hundred per query keeps within
      // what nodes accept in one topic list.
      const chunks: Hash[][] = [];
      for (let i = 0; i < userOpHashes.length; i += LOG_QUERY_HASHES) {
        chunks.push(userOpHashes.slice(i, i + LOG_QUERY_HASHES));
      }
      const logs = (
        await Promise.all(
          chunks.map((chunk) =>
            this.client.getLogs({
              address: this.contracts.entry_point,
              event: userOperationEventAbi,
              args: { userOpHash: chunk },
              fromBlock,
              toBlock: 'latest',
            }),
          ),
        )
      ).flat();
      const txHashes = [
        ...new Set(logs.map((log) => log.transactionHash).filter((h): h is Hash => h !== null)),
      ];
      return Promise.all(txHashes.map((hash) => this.client.getTransactionReceipt({ hash })));
    });
  }

  /**
   * The chain's head and where each of `userOpHashes` ran since `fromBlock` (its `UserOperationEvent`), in
   * one batched request: the external path's reorg watch. An operation the chain does not hold is absent.
   */
  async operationInclusions(
    userOpHashes: Hash[],
    fromBlock: bigint,
  ): Promise<{ head: bigint; inclusions: Map<string, { txHash: Hash; blockNumber: bigint }> }> {
    return atGateway(async () => {
      const [head, logs] = await Promise.all([
        this.client.getBlockNumber({ cacheTime: 0 }),
        this.client.getLogs({
          address: this.contracts.entry_point,
          event: userOperationEventAbi,
          args: { userOpHash: userOpHashes },
          fromBlock,
          toBlock: 'latest',
        }),
      ]);
      const inclusions = new Map<string, { txHash: Hash; blockNumber: bigint }>();
      for (const log of logs) {
        if (log.transactionHash === null || log.blockNumber === null || !log.args.userOpHash) continue;
        inclusions.set(log.args.userOpHash.toLowerCase(), {
          txHash: log.transactionHash,
          blockNumber: log.blockNumber,
        });
      }
      return { head, inclusions };
    });
  }

  /** The latest block number (uncached). */
  async blockNumber(): Promise<bigint> {
    return atGateway(this.readHead);
  }

  /** The EntryPoint's next nonce of `sender` under `key` (key << 64 | sequence; key 0: the usual sequence). */
  async getNonce(sender: Address, key = 0n): Promise<bigint> {
    return this.read('entryPoint', 'getNonce', [sender, key]);
  }

  // ----- balances -----

  async nativeBalance(address: Address): Promise<bigint> {
    return atGateway(() => this.client.getBalance({ address }));
  }

  /** ERC-20 balance of `address` in base units; the platform token unless `token` is given. */
  async tokenBalance(address: Address, token: Address = this.contracts.token): Promise<bigint> {
    return atGateway(() =>
      this.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] }),
    );
  }

  // ----- typed reads of the platform contracts -----

  /**
   * A typed view call of a platform contract, e.g. `read('dex', 'ownerOf', [slot])` or
   * `read('contentToken', 'usedBalanceOf', [cuid, slot])`.
   */
  async read<C extends PlatformContract, F extends ReadName<C>>(
    contract: C,
    functionName: F,
    args: ReadArgs<C, F>,
  ): Promise<ReadResult<C, F>> {
    const address = this.contracts[platformAddressKey[contract]];
    return atGateway(
      () =>
        this.client.readContract({
          address,
          abi: platformAbis[contract] as Abi,
          functionName,
          args: args as readonly unknown[],
        }) as Promise<ReadResult<C, F>>,
    );
  }

  /** The wallet owning `slot` on the dex, or undefined when the slot does not exist. */
  async slotOwner(slot: bigint): Promise<Address | undefined> {
    const owner = await this.read('dex', 'ownerOf', [slot]);
    return /^0x0{40}$/.test(owner) ? undefined : owner;
  }

  // ----- what the operation pipeline needs -----

  /** Current fee suggestion for operations and bundles (cached for 2 s). */
  async fees(): Promise<Fees> {
    const now = Date.now();
    if (!this.#fees || now - this.#fees.at > FEES_TTL_MS) {
      const value = atGateway(async () => {
        const fees = await this.client.estimateFeesPerGas();
        return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
      });
      this.#fees = { value, at: now };
      value.catch(() => (this.#fees = undefined));
    }
    return this.#fees.value;
  }

  /** Timestamp of the latest block, in seconds (cached for 1 s, or `maxAgeMs`). */
  async latestTimestamp(maxAgeMs = TIMESTAMP_TTL_MS): Promise<number> {
    const now = Date.now();
    if (!this.#timestamp || now - this.#timestamp.at > maxAgeMs) {
      const value = atGateway(async () =>
        Number((await this.client.getBlock({ blockTag: 'latest' })).timestamp),
      );
      this.#timestamp = { value, at: now };
      value.catch(() => (this.#timestamp = undefined));
    }
    return this.#timestamp.value;
  }

  /**
   * Gas the wallet's call needs when the EntryPoint makes it (`callGasLimit`). An undeployed wallet is
   * estimated with its future code put in place by a state override. A revert is `OperationReverted`.
   */
  async estimateCallGas(sender: Address, callData: Hex, undeployedOwner?: Address): Promise<bigint> {
    return atGateway(() =>
      this.client.estimateGas({
        account: this.contracts.entry_point,
        to: sender,
        data: callData,
        ...(undeployedOwner
          ? { stateOverride: [{ address: sender, code: this.walletRuntimeCode(undeployedOwner) }] }
          : {}),
      }),
    );
  }

  /**
   * Runs `handleOps(ops, beneficiary)` with `gas` (the bundle's worst-case bound) and reports the gas it needs,
   * or the first operation the EntryPoint refuses (`FailedOp`). One execution: `eth_createAccessList` runs
   * the bundle as `eth_call` would and answers the gas it used; the bundle needs that plus the largest
   * operation's AA95 reserve (`executionReserve`: the EntryPoint refuses to start an operation's call unless
   * that much is left, whatever the call then uses). `eth_estimateGas` would answer the need itself, but by a
   * binary search that runs the bundle about ten times (2 s against 0.2 s for 100 transfers on a loaded
   * machine). It is the fallback where the node does not offer `eth_createAccessList` or reports a revert
   * without its data (geth puts only an error text in the answer).
   *
   * The run is at the latest block, whose time is in the past: an operation refused only for its validity
   * window ("AA22"/"AA32 expired or not due") is run again at `pending`, the next block's time, which is the
   * earliest the bundle can be judged at. A session signature names its UTC day, so after 00:00 an operation of
   * the new day is not due at a block of yesterday, and an automining chain makes no block until something is
   * sent (docs/session-keys.md, "The turn of the day").
   */
  async simulateHandleOps(
    ops: UserOperation[],
    beneficiary: Address,
    gas: bigint,
  ): Promise<BundleSimulation> {
    const atLatest = await this.#simulateHandleOpsAt('latest', ops, beneficiary, gas);
    if (atLatest.ok || !isOutsideValidityWindow(atLatest.reason)) return atLatest;
    // A node that cannot run at `pending` leaves the refusal standing (the rest of the bundle goes on without it).
    return this.#simulateHandleOpsAt('pending', ops, beneficiary, gas).catch(() => atLatest);
  }

  async #simulateHandleOpsAt(
    blockTag: 'latest' | 'pending',
    ops: UserOperation[],
    beneficiary: Address,
    gas: bigint,
  ): Promise<BundleSimulation> {
    const request = {
      from: beneficiary,
      to: this.contracts.entry_point,
      data: encodeHandleOps(ops, beneficiary),
      gas: numberToHex(gas),
    };
    try {
      const run = (await this.client.request({
        method: 'eth_createAccessList',
        params: [request, blockTag],
      } as never)) as { gasUsed?: Hex; error?: string };
      if (run.error === undefined && run.gasUsed !== undefined) {
        const reserve = ops.reduce(
          (max, op) => (executionReserve(op) > max ? executionReserve(op) : max),
          0n,
        );
        const needed = BigInt(run.gasUsed) + reserve;
        return { ok: true, gas: needed < gas ? needed : gas };
      }
    } catch (err) {
      if (isTransportError(err)) throw chainUnavailable();
      if (isRevert(err) && revertDataOf(err)) return refusalOf(err);
      // Not offered by this node, or a revert without its data: ask `eth_estimateGas` below.
    }
    try {
      const needed = await this.client.request({
        method: 'eth_estimateGas',
        params: [request, blockTag],
      } as never);
      return { ok: true, gas: BigInt(needed as Hex) };
    } catch (err) {
      if (isTransportError(err)) throw chainUnavailable();
      if (isRevert(err)) return refusalOf(err);
      throw translateChainError(err);
    }
  }

  /** The paymaster's deposit at the EntryPoint (what sponsorship spends). */
  async paymasterDeposit(): Promise<bigint> {
    return this.read('entryPoint', 'balanceOf', [this.contracts.paymaster]);
  }
}

/**
 * Gas the EntryPoint must see left before it starts `op`'s execution, or it reverts the whole bundle ("AA95
 * out of gas"): its call and verification limits plus 5000, and 1/64 more that a call keeps back (EIP-150).
 */
export function executionReserve(op: Pick<UserOperation, 'callGasLimit' | 'verificationGasLimit'>): bigint {
  return ((op.callGasLimit + op.verificationGasLimit + 5_000n) * 64n) / 63n;
}

/** The `FailedOp(opIndex, reason)` in a reverted simulation; any other revert is thrown, translated. */
function refusalOf(err: unknown): BundleSimulation {
  const revert = decodeRevertReason(revertDataOf(err));
  if (revert.name === 'FailedOp') {
    return { ok: false, opIndex: Number(revert.args[0]), reason: String(revert.args[1]) };
  }
  throw translateChainError(err);
}

/** Hashes per `eth_getLogs` topic list in `receiptsOfOperations`. */
const LOG_QUERY_HASHES = 256;

/** Call data of `EntryPoint.handleOps(ops, beneficiary)`. */
export function encodeHandleOps(ops: UserOperation[], beneficiary: Address): Hex {
  return encodeFunctionData({ abi: handleOpsAbi, functionName: 'handleOps', args: [ops, beneficiary] });
}
