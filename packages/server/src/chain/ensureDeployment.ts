import {
  CANONICAL_ENTRY_POINT,
  computeAccountAddress,
  dauthAccountFactoryAbi,
  dauthContentTokenAbi,
  dauthDexAbi,
  deployDauthContracts,
  entryPointAbi,
  placeCanonicalEntryPoint,
} from '@dauth/contracts';
import { type Abi, createWalletClient, getContractAddress, type LocalAccount, parseEther } from 'viem';
import type { Logger } from 'pino';
import type { ChainClient } from './chainClient.js';
import { refuseOutdatedContracts } from './contractCode.js';
import type { DeploymentRecord, DeploymentRecordStore } from './deploymentRecord.js';
import type { JournaledSender } from './journal/journaledSender.js';
import { OPERATOR_WALLET_SALT } from './operations/operatorWallet.js';
import type { Address, ContractAddresses } from './types.js';
import { waitForReceipt } from './waitForReceipt.js';

export interface EnsureDeploymentParameters {
  client: ChainClient;
  rpcUrl: string;
  logger: Logger;
  record: DeploymentRecordStore;
  /** Every deployment transaction is journaled (docs/chain.md, "Durability"). */
  sender: JournaledSender;
  /** Deploys when nothing usable is recorded; without it a missing deployment is an error. */
  deployer: LocalAccount | undefined;
  /** The key whose signatures the paymaster accepts. */
  paymasterSigner: Address;
  /** Owner EOA of the platform operator wallet. */
  operatorOwner: Address;
  /** Wei deposited for the paymaster at deployment (and kept above a tenth of it, when given). */
  paymasterDeposit: bigint;
  /** Wei sent to the operator wallet at deployment (the embedded chain gives it some to fund pools). */
  operatorFunding: bigint;
  /** CHAIN_CONFIRMATIONS: how deep a fresh deployment must be before it is recorded and used (default 1). */
  confirmations?: number;
}

/**
 * Returns the deployment to use on this chain: the recorded one when its code is there, otherwise a fresh
 * deployment (first start, or a chain that was reset), recorded for the next start. A recorded dex or
 * content-token contract whose code is not this build's (deployed by an earlier version) stops the start
 * with the record's advice on redeploying. Either way the dex and the content-token contract are checked
 * to name the platform operator wallet as their operator.
 */
export async function ensureDeployment(p: EnsureDeploymentParameters): Promise<DeploymentRecord> {
  const chainId = await p.client.getChainId();
  const recorded = await p.record.load(chainId);
  if (recorded) {
    const present = await Promise.all(Object.values(recorded.contracts).map((a) => hasCode(p.client, a)));
    if (present.every(Boolean)) {
      // Contracts an earlier version deployed lack what this one calls and relies on (issue 12).
      await refuseOutdatedContracts(p.client, recorded.contracts, p.record.redeployAdvice);
      noteOwnEntryPoint(p.logger, recorded.contracts.entry_point);
      await wireOperator(p, recorded.contracts);
      await topUpPaymaster(p, recorded.contracts);
      return recorded;
    }
    if (present.some(Boolean)) {
      throw new Error(
        `Only some of the recorded contracts exist on chain ${chainId}; the chain and the record disagree`,
      );
    }
    p.logger.warn(
      { chainId },
      'the recorded contracts are not on this chain (it was reset); deploying again',
    );
  }
  if (!p.deployer)
    throw new Error(`No contracts recorded for chain ${chainId} and no deployer key to deploy them`);
  const record = await deploy(p, p.deployer, chainId);
  await awaitDeploymentDepth(p, p.deployer.address, record);
  return p.record.save(record);
}

/**
 * A fresh deployment is recorded only once it is CHAIN_CONFIRMATIONS blocks deep, and still there: the
 * deployer's transactions are ordered by nonce, so once the block that held the last of them is deep enough,
 * so are all the others. A reorg that took any of them away leaves a contract without code or the deployer's
 * nonce lower than it was, and the start stops (the next start deploys again) rather than record addresses
 * the chain does not hold.
 */
async function awaitDeploymentDepth(
  p: EnsureDeploymentParameters,
  deployer: Address,
  record: DeploymentRecord,
): Promise<void> {
  const confirmations = p.confirmations ?? 1;
  if (confirmations <= 1) return;
  const sent = await p.client.getTransactionCount({ address: deployer, blockTag: 'latest' });
  const minedBy = await p.client.getBlockNumber({ cacheTime: 0 });
  const deepEnough = minedBy + BigInt(confirmations - 1);
  const deadline = Date.now() + 10 * 60_000;
  while ((await p.client.getBlockNumber({ cacheTime: 0 })) < deepEnough) {
    if (Date.now() > deadline)
      throw new Error(`the deployment did not get ${confirmations} blocks deep in time`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const present = await Promise.all(Object.values(record.contracts).map((a) => hasCode(p.client, a)));
  const stillSent = await p.client.getTransactionCount({ address: deployer, blockTag: 'latest' });
  if (!present.every(Boolean) || stillSent < sent) {
    throw new Error(
      'a reorg took part of the deployment away before it was deep enough; start again to redeploy',
    );
  }
  p.logger.info({ confirmations }, 'the deployment is deep enough');
}

/**
 * Checks that every given contract has code (configured addresses on an external chain), and that the dex
 * and the content-token contract run this build's code.
 */
export async function assertContractsDeployed(
  client: ChainClient,
  contracts: ContractAddresses,
): Promise<void> {
  for (const [name, address] of Object.entries(contracts)) {
    if (!(await hasCode(client, address))) {
      throw new Error(`No contract at CONTRACT_${name.toUpperCase()} = ${address}`);
    }
  }
  await refuseOutdatedContracts(
    client,
    contracts,
    "Deploy this version's contracts and set CONTRACT_DEX and CONTRACT_CONTENT_TOKEN to them.",
  );
}

/**
 * A deployment recorded before the canonical EntryPoint was used (or on a chain without the deterministic
 * deployment proxy) keeps its own EntryPoint: its wallets and the paymaster's deposit live there, and moving
 * to the canonical one would change every wallet address. It keeps working; the start says so.
 */
export function noteOwnEntryPoint(logger: Logger, entryPoint: Address): void {
  if (entryPoint.toLowerCase() === CANONICAL_ENTRY_POINT.toLowerCase()) return;
  logger.info(
    { entryPoint, canonical: CANONICAL_ENTRY_POINT },
    'this deployment uses its own EntryPoint v0.6, not the canonical one (recorded before dauth used it, or ' +
      'the chain has no deterministic deployment proxy); wallets stay where they are',
  );
}

/** The platform operator wallet of a factory: the operator owner's wallet at salt 0. */
export async function operatorWalletOf(
  client: ChainClient,
  factory: Address,
  operatorOwner: Address,
): Promise<{ operatorWallet: Address; implementation: Address }> {
  const implementation = await client.readContract({
    address: factory,
    abi: dauthAccountFactoryAbi,
    functionName: 'accountImplementation',
  });
  return {
    implementation,
    operatorWallet: computeAccountAddress({
      factory,
      implementation,
      owner: operatorOwner,
      salt: OPERATOR_WALLET_SALT,
    }),
  };
}

async function deploy(
  p: EnsureDeploymentParameters,
  deployer: LocalAccount,
  chainId: number,
): Promise<DeploymentRecord> {
  const started = Date.now();
  p.logger.info({ chainId, deployer: deployer.address }, 'deploying the dauth contracts (first start)');
  const walletClient = createWalletClient({
    account: deployer,
    chain: p.client.chain,
    transport: p.sender.transportFor(deployer.address),
  });
  const entryPoint = await canonicalEntryPoint(p, walletClient);
  // deployDauthContracts deploys the EntryPoint (unless the canonical one is used) and then the factory,
  // which creates the account implementation as its first contract: predict the operator wallet so the dex
  // and the content token are born with it (checked below, and corrected if the prediction was wrong).
  const nonce = await p.client.getTransactionCount({ address: deployer.address, blockTag: 'pending' });
  const factory = getContractAddress({
    from: deployer.address,
    nonce: BigInt(entryPoint ? nonce : nonce + 1),
  });
  const implementation = getContractAddress({ from: factory, nonce: 1n });
  const predicted = computeAccountAddress({
    factory,
    implementation,
    owner: p.operatorOwner,
    salt: OPERATOR_WALLET_SALT,
  });
  const contracts = await deployDauthContracts({
    walletClient,
    publicClient: p.client,
    platformSigner: p.paymasterSigner,
    operator: predicted,
    treasury: predicted,
    paymasterDeposit: p.paymasterDeposit,
    ...(entryPoint ? { entryPoint } : {}),
  });
  const { operatorWallet } = await operatorWalletOf(p.client, contracts.account_factory, p.operatorOwner);
  const record: DeploymentRecord = {
    chainId,
    contracts,
    operatorWallet,
    deployedAt: new Date().toISOString(),
  };
  await wireOperator(p, contracts);
  if (p.operatorFunding > 0n) {
    const hash = await walletClient.sendTransaction({ to: operatorWallet, value: p.operatorFunding });
    await waitForReceipt(p.client, hash);
  }
  p.logger.info({ chainId, contracts, operatorWallet, ms: Date.now() - started }, 'dauth contracts deployed');
  return record;
}

/**
 * The canonical EntryPoint v0.6 (`0x5FF137D4…2789`, docs/operations.md "EntryPoint address") when this chain
 * has it or can have it: used where it exists with the canonical code, placed there through the deterministic
 * deployment proxy where it does not (the embedded chain, a fresh test chain). Undefined when neither works:
 * the deployment then brings its own EntryPoint, and the start says so.
 */
async function canonicalEntryPoint(
  p: EnsureDeploymentParameters,
  walletClient: Parameters<typeof placeCanonicalEntryPoint>[0]['walletClient'],
): Promise<Address | undefined> {
  const outcome = await placeCanonicalEntryPoint({ walletClient, publicClient: p.client });
  switch (outcome.kind) {
    case 'present':
      p.logger.info({ entryPoint: outcome.address }, 'using the canonical EntryPoint v0.6 of this chain');
      return outcome.address;
    case 'deployed':
      p.logger.info(
        { entryPoint: outcome.address, txHash: outcome.txHash },
        'placed the canonical EntryPoint v0.6 through the deterministic deployment proxy',
      );
      return outcome.address;
    case 'no_proxy':
      p.logger.warn(
        { canonical: CANONICAL_ENTRY_POINT },
        'this chain has no deterministic deployment proxy, so the canonical EntryPoint cannot be placed: ' +
          'deploying our own EntryPoint v0.6 at an address of the deployer (public bundlers will not know it)',
      );
      return undefined;
    case 'other_code':
      p.logger.warn(
        { canonical: CANONICAL_ENTRY_POINT, codeHash: outcome.codeHash },
        'the code at the canonical EntryPoint address is not the EntryPoint v0.6: deploying our own EntryPoint',
      );
      return undefined;
  }
}

/** Makes the operator wallet the dex's and content token's operator (and the treasury) when we own them. */
async function wireOperator(p: EnsureDeploymentParameters, contracts: ContractAddresses): Promise<void> {
  const { operatorWallet } = await operatorWalletOf(p.client, contracts.account_factory, p.operatorOwner);
  const targets: { address: Address; abi: Abi; name: string }[] = [
    { address: contracts.dex, abi: dauthDexAbi as Abi, name: 'dex' },
    { address: contracts.content_token, abi: dauthContentTokenAbi as Abi, name: 'content token' },
  ];
  for (const target of targets) {
    const [operator, owner] = (await Promise.all([
      p.client.readContract({ address: target.address, abi: target.abi, functionName: 'operator' }),
      p.client.readContract({ address: target.address, abi: target.abi, functionName: 'owner' }),
    ])) as [Address, Address];
    if (operator.toLowerCase() === operatorWallet.toLowerCase()) continue;
    if (!p.deployer || owner.toLowerCase() !== p.deployer.address.toLowerCase()) {
      p.logger.error(
        { contract: target.name, operator, operatorWallet },
        'the contract does not accept the platform operator wallet, and we cannot change it: its writes will fail',
      );
      continue;
    }
    p.logger.info({ contract: target.name, operatorWallet }, 'setting the platform operator wallet');
    await send(p, p.deployer, target.address, target.abi, 'setOperator', [operatorWallet]);
    if (target.name === 'content token') {
      await send(p, p.deployer, target.address, target.abi, 'setTreasury', [operatorWallet]);
    }
  }
}

/** Keeps the paymaster's deposit at the EntryPoint above a tenth of the configured deposit. */
async function topUpPaymaster(p: EnsureDeploymentParameters, contracts: ContractAddresses): Promise<void> {
  if (!p.deployer || p.paymasterDeposit === 0n) return;
  const deposit = await p.client.readContract({
    address: contracts.entry_point,
    abi: entryPointAbi,
    functionName: 'balanceOf',
    args: [contracts.paymaster],
  });
  if (deposit >= p.paymasterDeposit / 10n) return;
  p.logger.info({ deposit: deposit.toString() }, 'topping up the paymaster deposit');
  await send(
    p,
    p.deployer,
    contracts.entry_point,
    entryPointAbi as Abi,
    'depositTo',
    [contracts.paymaster],
    p.paymasterDeposit,
  );
}

async function send(
  p: EnsureDeploymentParameters,
  account: LocalAccount,
  address: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[],
  value?: bigint,
): Promise<void> {
  const walletClient = createWalletClient({
    account,
    chain: p.client.chain,
    transport: p.sender.transportFor(account.address),
  });
  const hash = await walletClient.writeContract({
    address,
    abi,
    functionName,
    args,
    ...(value ? { value } : {}),
  });
  const receipt = await waitForReceipt(p.client, hash);
  if (receipt.status !== 'success') throw new Error(`${functionName} on ${address} reverted (${hash})`);
}

async function hasCode(client: ChainClient, address: Address): Promise<boolean> {
  const code = await client.getCode({ address });
  return code !== undefined && code !== '0x';
}

export const EMBEDDED_FUNDING = {
  paymasterDeposit: parseEther('1000'),
  operatorFunding: parseEther('100'),
};
