import { dauthSessionAccountAbi, dauthSessionAccountBytecode } from '@dauth/contracts';
import {
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getContractAddress,
  keccak256,
  numberToHex,
  pad,
} from 'viem';
import { atGateway } from './chainErrors.js';
import type { ChainGateway } from './chainGateway.js';
import { addressOfPrivateKey, type OperationOwner, signEthMessageHash } from './operations/operationOwner.js';
import type { OperationPipeline } from './operations/operationPipeline.js';
import { OPERATION_GAS } from './operations/operationSigner.js';
import type { OperatorWallet } from './operations/operatorWallet.js';
import type { OperationResult } from './operations/pendingOperation.js';
import type { Address, Call, Hash, Hex } from './types.js';

/**
 * The deterministic CREATE2 deployer (Arachnid's proxy, present on anvil and on most public networks): call
 * data `salt (32) ‖ initCode`, creates at `create2(deployer, salt, keccak(initCode))`. Session accounts are
 * deployed through it, so a session account's address is known before it exists and a retried deployment
 * is the same contract.
 */
export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';

export const SECONDS_PER_DAY = 86_400;

/**
 * Validation gas of a session-key operation: the owner's 150k (signature, paymaster, prefund) plus, per call,
 * room for cold reads of its allow-list entry and token cap and a fresh day counter (about 27k for a call on a
 * capped token not yet touched that day), within the per-operation gas cap for 16 calls.
 */
export const SESSION_VERIFICATION_GAS = 150_000n;
export const SESSION_VERIFICATION_GAS_PER_CALL = 30_000n;

/**
 * Call gas of a grant (`addSessionKey`, and `revokeSessionKey` of a replaced key, in one `executeBatch`) beyond its
 * stored entries, and per entry: every allowed (target, selector) pair and every token cap is one fresh storage
 * slot (a cold zero → non-zero SSTORE, 22,100 gas) plus its call data and loop. Measured on the embedded chain
 * (test/sessionKeys/maxPolicy.test.ts): the estimate is 103,595 for one pair, then 23,937 per pair and 24,078 per
 * token cap. Upper bounds, so a policy the API accepts is never refused at its grant (docs/session-keys.md).
 */
export const GRANT_CALL_GAS_BASE = 130_000n;
export const GRANT_CALL_GAS_PER_ENTRY = 25_000n;

/**
 * The most gas a grant of a policy with `entries` stored entries asks the paymaster for: its call gas with the
 * pipeline's 20% margin, the fixed pre-verification gas and the owner's verification gas (the session account is
 * deployed before the grant). This is what `SPONSOR_MAX_OPERATION_GAS` is compared with.
 */
export function grantGasAsk(entries: number): bigint {
  const call = GRANT_CALL_GAS_BASE + GRANT_CALL_GAS_PER_ENTRY * BigInt(entries);
  return call + call / 5n + OPERATION_GAS.preVerificationGas + OPERATION_GAS.verificationGasLimit;
}

/** The most entries a policy may store so that its grant asks at most `maxOperationGas` (0 when none fit). */
export function grantEntriesWithin(maxOperationGas: number): number {
  let entries = 0;
  while (grantGasAsk(entries + 1) <= BigInt(maxOperationGas)) entries++;
  return entries;
}

/** A session key's policy as the contract's `Policy` struct takes it. */
export interface OnChainPolicy {
  calls: { to: Address; selector: Hex }[];
  maxValuePerCall: bigint;
  maxValuePerDay: bigint;
  tokenLimits: { token: Address; perDay: bigint }[];
  /** Unix seconds. */
  validUntil: number;
}

export interface OnChainSession {
  validUntil: number;
  active: boolean;
  maxValuePerCall: bigint;
  maxValuePerDay: bigint;
}

export interface TokenInfo {
  symbol: string;
  decimals: number;
}

/**
 * The chain side of session keys (docs/session-keys.md): where a wallet's `DauthSessionAccount` lives, its
 * deployment (by the operator wallet, through the CREATE2 deployer), the calls that register and revoke keys,
 * the reads of its policy counters, and operations signed by a session key (`key ‖ day ‖ ECDSA`).
 */
export class SessionAccountGateway {
  readonly #tokens = new Map<string, Promise<TokenInfo>>();

  constructor(
    private readonly gateway: ChainGateway,
    private readonly pipeline: OperationPipeline,
    private readonly operator: OperatorWallet,
  ) {}

  get entryPoint(): Address {
    return this.gateway.contracts.entry_point;
  }

  get paymaster(): Address {
    return this.gateway.contracts.paymaster;
  }

  get factory(): Address {
    return this.gateway.contracts.account_factory;
  }

  /** Contracts no session key may call, whatever a policy says (with the wallet and its session account). */
  get platformContracts(): Address[] {
    const c = this.gateway.contracts;
    return [c.entry_point, c.paymaster, c.account_factory, c.dex];
  }

  #initCode(vault: Address, owner: Address): Hex {
    return concat([
      dauthSessionAccountBytecode,
      encodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }, { type: 'address' }],
        [this.gateway.contracts.entry_point, owner, vault],
      ),
    ]);
  }

  /** The session account of `vault` whose owner at deployment is `owner` (CREATE2, computed off chain). */
  accountAddress(vault: Address, owner: Address): Address {
    return getContractAddress({
      opcode: 'CREATE2',
      from: CREATE2_DEPLOYER,
      salt: pad(vault, { size: 32 }),
      bytecodeHash: keccak256(this.#initCode(vault, owner)),
    });
  }

  hasCode(address: Address): Promise<boolean> {
    return this.gateway.isDeployed(address);
  }

  /** Deploys the session account of (`vault`, `owner`) from the operator wallet unless it has code. */
  async deployAccount(vault: Address, owner: Address): Promise<Hash | undefined> {
    const account = this.accountAddress(vault, owner);
    if (await this.gateway.isDeployed(account)) return undefined;
    if (!(await this.gateway.isDeployed(CREATE2_DEPLOYER))) {
      throw new Error(`the CREATE2 deployer ${CREATE2_DEPLOYER} is not on this chain`);
    }
    const result = await this.operator.execute([
      { to: CREATE2_DEPLOYER, data: concat([pad(vault, { size: 32 }), this.#initCode(vault, owner)]) },
    ]);
    if (!result.success)
      throw new Error(`session account deployment reverted: ${result.revert?.message ?? ''}`);
    this.gateway.markDeployed(account);
    return result.txHash;
  }

  /** The wallet call `changeOwner(account)` (raw operation call data of the legacy wallet). */
  changeOwnerCallData(newOwner: Address): Hex {
    return encodeFunctionData({ abi: dauthSessionAccountAbi, functionName: 'changeOwner', args: [newOwner] });
  }

  /** The session account's call that registers `key` with `policy` (made by the account on itself). */
  addSessionKeyCall(account: Address, key: Address, policy: OnChainPolicy): Call {
    return {
      to: account,
      data: encodeFunctionData({
        abi: dauthSessionAccountAbi,
        functionName: 'addSessionKey',
        args: [
          key,
          {
            targets: policy.calls.map((c) => c.to),
            selectors: policy.calls.map((c) => c.selector),
            maxValuePerCall: policy.maxValuePerCall,
            maxValuePerDay: policy.maxValuePerDay,
            tokens: policy.tokenLimits.map((t) => t.token),
            tokenLimitsPerDay: policy.tokenLimits.map((t) => t.perDay),
            validUntil: policy.validUntil,
          },
        ],
      }),
    };
  }

  /** Call data `revokeSessionKey(key)`: an operation's whole call data, or a call of the account on itself. */
  revokeCallData(key: Address): Hex {
    return encodeFunctionData({ abi: dauthSessionAccountAbi, functionName: 'revokeSessionKey', args: [key] });
  }

  /**
   * One sponsored operation whose sender is a session account (or, for its upgrade, the legacy wallet), signed by
   * `owner` (the owner or a session key). A session key's operation gets validation gas for its policy check: each
   * call may read its allow-list entry and cap and write a fresh day counter. `clientId`: the app that causes it
   * (its daily sponsorship budget is charged too).
   */
  submit(
    account: Address,
    action: { calls: Call[] } | { callData: Hex },
    owner: OperationOwner,
    options: { session?: boolean; clientId?: string } = {},
  ): Promise<OperationResult> {
    const calls = 'calls' in action ? action.calls.length : 1;
    return this.pipeline.submitOperation({
      owner,
      salt: 0n,
      sender: account,
      ...('calls' in action ? { calls: action.calls } : { callData: action.callData }),
      ...(options.session
        ? {
            verificationGasLimit:
              SESSION_VERIFICATION_GAS + SESSION_VERIFICATION_GAS_PER_CALL * BigInt(calls),
          }
        : {}),
      ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
    });
  }

  /**
   * An operation signer for a session key held in `privateKey` (the caller wipes it once the operation
   * settled): `key (20) ‖ day (uint48) ‖ ECDSA`, the day the contract counts the spending on.
   */
  sessionSigner(privateKey: Uint8Array, day: number): OperationOwner {
    const address = addressOfPrivateKey(privateKey);
    return {
      address,
      signUserOpHash: async (hash) =>
        concat([address, numberToHex(day, { size: 6 }), signEthMessageHash(hash, privateKey)]),
    };
  }

  /** The address of a 32-byte session key. */
  keyAddress(privateKey: Uint8Array): Address {
    return addressOfPrivateKey(privateKey);
  }

  /**
   * Today for the contract: the later of the wall clock and the latest block, in whole days since 1970. `fresh`
   * reads the latest block now rather than up to a second ago.
   */
  async chainDay(options: { fresh?: boolean } = {}): Promise<number> {
    return Math.floor((await this.chainNow(options)) / SECONDS_PER_DAY);
  }

  /** Unix seconds: the later of the wall clock and the latest block. */
  async chainNow(options: { fresh?: boolean } = {}): Promise<number> {
    const latest = await this.gateway.latestTimestamp(options.fresh ? 0 : undefined);
    return Math.max(latest, Math.floor(Date.now() / 1000));
  }

  async accountOwner(account: Address): Promise<Address> {
    return this.#read<Address>(account, 'owner', []);
  }

  async session(account: Address, key: Address): Promise<OnChainSession> {
    const [validUntil, active, maxValuePerCall, maxValuePerDay] = await this.#read<
      [number, boolean, bigint, bigint]
    >(account, 'sessions', [key]);
    return { validUntil: Number(validUntil), active, maxValuePerCall, maxValuePerDay };
  }

  valueSpent(account: Address, key: Address, day: number): Promise<bigint> {
    return this.#read<bigint>(account, 'valueSpent', [key, BigInt(day)]);
  }

  tokenSpent(account: Address, key: Address, token: Address, day: number): Promise<bigint> {
    return this.#read<bigint>(account, 'tokenSpent', [key, token, BigInt(day)]);
  }

  /** An ERC-20's symbol and decimals, read once per process. */
  tokenInfo(token: Address): Promise<TokenInfo> {
    const key = token.toLowerCase();
    let info = this.#tokens.get(key);
    if (!info) {
      info = atGateway(async () => {
        const [symbol, decimals] = await Promise.all([
          this.gateway.client.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' }),
          this.gateway.client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
        ]);
        return { symbol, decimals };
      });
      info.catch(() => this.#tokens.delete(key));
      this.#tokens.set(key, info);
    }
    return info;
  }

  #read<T>(account: Address, functionName: string, args: readonly unknown[]): Promise<T> {
    return atGateway(
      () =>
        this.gateway.client.readContract({
          address: account,
          abi: dauthSessionAccountAbi,
          functionName: functionName as 'owner',
          args: args as [],
        }) as Promise<T>,
    );
  }
}
