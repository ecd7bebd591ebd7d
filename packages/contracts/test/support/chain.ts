/**
 * A fresh anvil chain with dauth's contracts, fixed keys and a tiny bundler, shared by the contract tests.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  parseEther,
  parseGwei,
  toHex,
  zeroAddress,
  type Address,
  type Hex,
  type LocalAccount,
  type TransactionReceipt,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import {
  computeAccountAddress,
  dauthAccountAbi,
  dauthAccountFactoryAbi,
  deployDauthContracts,
  encodeInitCode,
  entryPointAbi,
  signSponsoredUserOp,
  startAnvil,
  testCounterAbi,
  testCounterBytecode,
  type AnvilInstance,
  type DauthContractAddresses,
  type UnsignedUserOperation,
  type UserOperation,
} from '../../src/index.js';

/** anvil's development mnemonic: its accounts start with 10,000 ether each. */
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/** A deterministic key for `label` (wallet owners, signers). */
export const testKey = (label: string): LocalAccount =>
  privateKeyToAccount(keccak256(toHex(`dauth/test/${label}`)));

export const GAS_FIELDS = {
  callGasLimit: 1_000_000n,
  verificationGasLimit: 1_000_000n,
  preVerificationGas: 100_000n,
  maxFeePerGas: parseGwei('10'),
  maxPriorityFeePerGas: parseGwei('1'),
};

export type OperationOptions = {
  owner: LocalAccount;
  /** Address-deriving owner (the first owner), when `owner` took over later. */
  firstOwner?: Address;
  salt?: bigint;
  callData: Hex;
  validUntil?: number;
  validAfter?: number;
  paymasterSigner?: LocalAccount;
};

export async function startTestChain() {
  const anvil: AnvilInstance = await startAnvil();
  const transport = http(anvil.rpcUrl);
  const publicClient = createPublicClient({ chain: foundry, transport });
  const testClient = createTestClient({ chain: foundry, transport, mode: 'anvil' });
  const walletFor = (account: LocalAccount) => createWalletClient({ chain: foundry, transport, account });

  const devAccount = (addressIndex: number) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex });
  const deployer = devAccount(0);
  const operator = devAccount(1);
  const stranger = devAccount(2);
  const treasury = devAccount(3);
  const platformSigner = testKey('platform-signer');
  const deployerWallet = walletFor(deployer);
  const addresses: DauthContractAddresses = await deployDauthContracts({
    walletClient: deployerWallet,
    publicClient,
    platformSigner: platformSigner.address,
    operator: operator.address,
    treasury: treasury.address,
  });
  const implementation = await publicClient.readContract({
    address: addresses.account_factory,
    abi: dauthAccountFactoryAbi,
    functionName: 'accountImplementation',
  });
  const counterHash = await deployerWallet.deployContract({
    abi: testCounterAbi,
    bytecode: testCounterBytecode,
  });
  const counter = getAddress(
    (await publicClient.waitForTransactionReceipt({ hash: counterHash })).contractAddress ?? zeroAddress,
  );

  async function mined(hash: Promise<Hex> | Hex): Promise<TransactionReceipt> {
    return publicClient.waitForTransactionReceipt({ hash: await hash });
  }

  function walletAddress(owner: Address, salt = 0n): Address {
    return computeAccountAddress({ factory: addresses.account_factory, implementation, owner, salt });
  }

  async function latestTimestamp(): Promise<number> {
    return Number((await publicClient.getBlock()).timestamp);
  }

  /** A signed, sponsored operation from the wallet of (firstOwner ?? owner, salt), with initCode if undeployed. */
  async function operation(options: OperationOptions): Promise<UserOperation> {
    const salt = options.salt ?? 0n;
    const firstOwner = options.firstOwner ?? options.owner.address;
    const sender = walletAddress(firstOwner, salt);
    const deployed = (await publicClient.getCode({ address: sender })) !== undefined;
    const nonce = await publicClient.readContract({
      address: addresses.entry_point,
      abi: entryPointAbi,
      functionName: 'getNonce',
      args: [sender, 0n],
    });
    const now = await latestTimestamp();
    const unsigned: UnsignedUserOperation = {
      sender,
      nonce,
      initCode: deployed ? '0x' : encodeInitCode(addresses.account_factory, firstOwner, salt),
      callData: options.callData,
      ...GAS_FIELDS,
    };
    return signSponsoredUserOp(unsigned, {
      entryPoint: addresses.entry_point,
      chainId: foundry.id,
      owner: options.owner,
      paymaster: addresses.paymaster,
      paymasterSigner: options.paymasterSigner ?? platformSigner,
      validUntil: options.validUntil ?? now + 300,
      validAfter: options.validAfter ?? now - 1,
    });
  }

  /** Submits `ops` through handleOps as the bundler (the deployer) and returns the mined receipt. */
  async function handleOps(ops: UserOperation[]): Promise<TransactionReceipt> {
    const { request } = await publicClient.simulateContract({
      account: deployer,
      address: addresses.entry_point,
      abi: entryPointAbi,
      functionName: 'handleOps',
      args: [ops, deployer.address],
      gas: 15_000_000n,
    });
    const receipt = await mined(deployerWallet.writeContract(request));
    if (receipt.status !== 'success') throw new Error('handleOps reverted');
    return receipt;
  }

  /**
   * Asserts the EntryPoint rejects `ops`: the call reverts with FailedOp(reason), and the transaction, sent
   * anyway, reverts on chain. Returns the reason.
   */
  async function rejectionOf(ops: UserOperation[]): Promise<string> {
    let reason: string | undefined;
    try {
      await publicClient.simulateContract({
        account: deployer,
        address: addresses.entry_point,
        abi: entryPointAbi,
        functionName: 'handleOps',
        args: [ops, deployer.address],
      });
    } catch (error) {
      reason = failedOpReason(error);
    }
    if (reason === undefined) throw new Error('handleOps was expected to fail');
    const receipt = await mined(
      deployerWallet.writeContract({
        address: addresses.entry_point,
        abi: entryPointAbi,
        functionName: 'handleOps',
        args: [ops, deployer.address],
        gas: 15_000_000n,
      }),
    );
    if (receipt.status !== 'reverted') throw new Error('handleOps transaction was expected to revert');
    return reason;
  }

  const execute = (target: Address, value: bigint, data: Hex) =>
    encodeFunctionData({ abi: dauthAccountAbi, functionName: 'execute', args: [target, value, data] });
  const increment = encodeFunctionData({ abi: testCounterAbi, functionName: 'increment' });

  async function countOf(address: Address): Promise<bigint> {
    return publicClient.readContract({
      address: counter,
      abi: testCounterAbi,
      functionName: 'counts',
      args: [address],
    });
  }

  async function fund(address: Address, value = parseEther('10')): Promise<void> {
    await testClient.setBalance({ address, value });
  }

  return {
    anvil,
    publicClient,
    testClient,
    walletFor,
    deployer,
    operator,
    stranger,
    treasury,
    platformSigner,
    addresses,
    implementation,
    counter,
    mined,
    walletAddress,
    latestTimestamp,
    operation,
    handleOps,
    rejectionOf,
    execute,
    increment,
    countOf,
    fund,
  };
}

export type TestChain = Awaited<ReturnType<typeof startTestChain>>;

/** The `reason` of the EntryPoint's FailedOp(opIndex, reason) inside a viem error, if that is what it is. */
export function failedOpReason(error: unknown): string | undefined {
  const reverted =
    error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
  if (!(reverted instanceof ContractFunctionRevertedError) || reverted.data?.errorName !== 'FailedOp')
    return undefined;
  return String(reverted.data.args?.[1]);
}

/** The custom error name (or require message) inside a viem contract error. */
export function revertNameOf(error: unknown): string | undefined {
  const reverted =
    error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined;
  // require(..., "message") decodes as Error(string): report the message itself.
  if (reverted.data?.errorName === 'Error') return String(reverted.data.args?.[0]);
  return reverted.data?.errorName ?? reverted.reason;
}

/** Runs `action` and returns the name of the custom error it reverted with; fails if it did not revert. */
export async function revertOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
  } catch (error) {
    const name = revertNameOf(error);
    if (name !== undefined) return name;
    throw error;
  }
  throw new Error('expected a revert');
}
