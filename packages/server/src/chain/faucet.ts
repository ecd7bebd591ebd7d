import { dauthTokenAbi, entryPointAbi } from '@dauth/contracts';
import { encodeFunctionData, type LocalAccount } from 'viem';
import { AppError, chainUnavailable, forbidden } from '../errors.js';
import type { ChainClient } from './chainClient.js';
import { atGateway } from './chainErrors.js';
import type { ChainGateway } from './chainGateway.js';
import { DEV_CHAIN_ID } from './devAccounts.js';
import { type RelayerSubmitter, SubmissionOutcomeUnknown } from './operations/relayerSubmitter.js';
import type { Address, Hex } from './types.js';

export interface FaucetRequest {
  address: Address;
  /** Wei to send. */
  native?: bigint;
  /** Base units of the platform ERC-20 to mint. */
  token?: bigint;
}

export interface FaucetResult {
  nativeBalance: bigint;
  tokenBalance: bigint;
}

/**
 * Development faucet (chain id 31337 only): sends native currency from the deployer account and mints the
 * platform ERC-20 (the deployer owns it). Requests run one at a time: they share the deployer's nonce.
 *
 * Each transaction is followed like a relayer bundle (`RelayerSubmitter` over the deployer key): journaled
 * before it is sent, sent again while pending (a node that dropped it gets it back), replaced with higher fees
 * when it is stuck (up to MAX_FEE_PER_GAS), answered only CHAIN_CONFIRMATIONS deep, and signed again only
 * when its nonce provably went to another transaction.
 */
export class Faucet {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly gateway: ChainGateway,
    private readonly client: ChainClient,
    private readonly funder: LocalAccount | undefined,
    /** Follows the deployer's transactions to their block; undefined without a deployer key. */
    private readonly submitter: RelayerSubmitter | undefined,
  ) {}

  get available(): boolean {
    return this.gateway.chainId === DEV_CHAIN_ID;
  }

  async fund(request: FaucetRequest): Promise<FaucetResult> {
    if (!this.available) {
      throw forbidden('faucet_unavailable', 'The faucet exists only on the development chain (31337)');
    }
    const run = this.#queue.then(() => this.#fund(request));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #fund({ address, native, token }: FaucetRequest): Promise<FaucetResult> {
    if ((native ?? 0n) > 0n || (token ?? 0n) > 0n) {
      const funder = this.funder;
      if (!funder) {
        throw new AppError(
          409,
          'faucet_unavailable',
          'The faucet needs DEPLOYER_PRIVATE_KEY (the token owner)',
        );
      }
      if (native && native > 0n) {
        const balance = await this.gateway.nativeBalance(funder.address);
        if (balance < native + 10n ** 17n) {
          throw new AppError(
            400,
            'faucet_insufficient_funds',
            'The faucet does not hold that much native currency',
          );
        }
        await this.#send(funder, { to: address, value: native, data: '0x' });
      }
      if (token && token > 0n) {
        await this.#send(funder, {
          to: this.gateway.contracts.token,
          value: 0n,
          data: encodeFunctionData({ abi: dauthTokenAbi, functionName: 'mint', args: [address, token] }),
        });
      }
    }
    const [nativeBalance, tokenBalance] = await Promise.all([
      this.gateway.nativeBalance(address),
      this.gateway.tokenBalance(address),
    ]);
    return { nativeBalance, tokenBalance };
  }

  /**
   * Adds `wei` to the paymaster's EntryPoint deposit from the deployer, on any chain: the low-funds refill of the
   * embedded chain and `POST /v1/admin/funding` (the deployer's own money, spent on the admin's word).
   */
  async depositForPaymaster(wei: bigint): Promise<void> {
    await this.#fromDeployer({
      to: this.gateway.contracts.entry_point,
      value: wei,
      data: encodeFunctionData({
        abi: entryPointAbi,
        functionName: 'depositTo',
        args: [this.gateway.contracts.paymaster],
      }),
    });
  }

  /** Sends `wei` of native currency from the deployer to `address`, on any chain (see `depositForPaymaster`). */
  async sendNative(address: Address, wei: bigint): Promise<void> {
    await this.#fromDeployer({ to: address, value: wei, data: '0x' });
  }

  async #fromDeployer(tx: { to: Address; value: bigint; data: Hex }): Promise<void> {
    const funder = this.funder;
    if (!funder) {
      throw new AppError(
        409,
        'funding_unavailable',
        'Funding needs DEPLOYER_PRIVATE_KEY (the account that pays)',
      );
    }
    const balance = await this.gateway.nativeBalance(funder.address);
    if (balance < tx.value + 10n ** 16n) {
      throw new AppError(
        409,
        'funding_insufficient',
        'The deployer account does not hold that much native currency',
      );
    }
    const run = this.#queue.then(() => this.#send(funder, tx));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #send(funder: LocalAccount, tx: { to: Address; value: bigint; data: Hex }): Promise<void> {
    const { client, submitter } = this;
    if (!submitter) throw new AppError(409, 'faucet_unavailable', 'The faucet needs DEPLOYER_PRIVATE_KEY');
    const gas = await atGateway(() => client.estimateGas({ account: funder.address, ...tx }));
    // The deployer's nonce is also used at start (deployment, top-ups): read it afresh for each grant.
    for (let attempt = 0; attempt < 3; attempt++) {
      submitter.reset();
      let outcome: Awaited<ReturnType<RelayerSubmitter['submit']>>;
      try {
        outcome = await submitter.submit({ to: tx.to, data: tx.data, value: tx.value, gas: gas + gas / 5n });
      } catch (err) {
        if (err instanceof SubmissionOutcomeUnknown) {
          throw chainUnavailable(
            `The node stopped answering after faucet transaction ${err.txHashes.at(-1)}`,
          );
        }
        throw err;
      }
      if (outcome.kind === 'dropped') continue; // its nonce went to another transaction: nothing was paid
      if (outcome.receipt.status !== 'success') {
        throw new AppError(
          502,
          'faucet_failed',
          `Faucet transaction ${outcome.receipt.transactionHash} reverted`,
        );
      }
      return;
    }
    throw new AppError(
      502,
      'faucet_failed',
      'Faucet transactions kept losing their nonce to other transactions',
    );
  }
}
