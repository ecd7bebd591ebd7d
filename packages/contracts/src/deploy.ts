/**
 * Deploys dauth's contract set: EntryPoint v0.6 (the published 0.6.0 artifact), the account factory (which
 * deploys the account implementation), the verifying paymaster with a deposit at the EntryPoint, the dex,
 * the content-token contract and the ERC-20.
 */
import {
  getAddress,
  parseEther,
  type Abi,
  type Account,
  type Address,
  type Chain,
  type ContractConstructorArgs,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { dauthAccountFactoryAbi, dauthAccountFactoryBytecode } from './generated/DauthAccountFactory.js';
import { dauthContentTokenAbi, dauthContentTokenBytecode } from './generated/DauthContentToken.js';
import { dauthDexAbi, dauthDexBytecode } from './generated/DauthDex.js';
import { dauthPaymasterAbi, dauthPaymasterBytecode } from './generated/DauthPaymaster.js';
import { dauthTokenAbi, dauthTokenBytecode } from './generated/DauthToken.js';
import { entryPointAbi, entryPointBytecode } from './generated/EntryPoint.js';

/** Addresses of the deployed set, keyed as `GET /v1/chain/info` names them. */
export type DauthContractAddresses = {
  entry_point: Address;
  account_factory: Address;
  paymaster: Address;
  dex: Address;
  content_token: Address;
  token: Address;
};

export type DeployDauthContractsParameters = {
  /** Deployer: pays for everything and becomes the owner of paymaster, dex, content token and ERC-20. */
  walletClient: WalletClient<Transport, Chain | undefined, Account>;
  publicClient: PublicClient;
  /** Key whose signatures the paymaster accepts. */
  platformSigner: Address;
  /** Key whose signatures authorise slot sales at the dex (`purchase`); `platformSigner` by default. */
  saleSigner?: Address;
  /** The platform's operator wallet allowed to write to dex and content token; the deployer by default. */
  operator?: Address;
  /** Receiver of the platform's 15% of content-token purchases; the deployer by default. */
  treasury?: Address;
  /** Wei deposited for the paymaster at the EntryPoint; 10 ether by default. */
  paymasterDeposit?: bigint;
};

/** Deploys the contracts one after another (each mined before the next) and returns their addresses. */
export async function deployDauthContracts({
  walletClient,
  publicClient,
  platformSigner,
  saleSigner,
  operator,
  treasury,
  paymasterDeposit = parseEther('10'),
}: DeployDauthContractsParameters): Promise<DauthContractAddresses> {
  const deployer = walletClient.account.address;

  async function deploy<const abi extends Abi>(
    abi: abi,
    bytecode: Hex,
    args: ContractConstructorArgs<abi>,
  ): Promise<Address> {
    const hash = await walletClient.deployContract({
      abi: abi as Abi,
      bytecode,
      args: args as readonly unknown[],
      account: walletClient.account,
      chain: walletClient.chain,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !receipt.contractAddress) {
      throw new Error(`deployment transaction ${hash} failed`);
    }
    return getAddress(receipt.contractAddress);
  }

  const entry_point = await deploy(entryPointAbi, entryPointBytecode, []);
  const account_factory = await deploy(dauthAccountFactoryAbi, dauthAccountFactoryBytecode, [entry_point]);
  const paymaster = await deploy(dauthPaymasterAbi, dauthPaymasterBytecode, [entry_point, platformSigner]);
  const dex = await deploy(dauthDexAbi, dauthDexBytecode, [
    operator ?? deployer,
    saleSigner ?? platformSigner,
  ]);
  const content_token = await deploy(dauthContentTokenAbi, dauthContentTokenBytecode, [
    operator ?? deployer,
    treasury ?? deployer,
  ]);
  const token = await deploy(dauthTokenAbi, dauthTokenBytecode, []);

  if (paymasterDeposit > 0n) {
    const hash = await walletClient.writeContract({
      address: paymaster,
      abi: dauthPaymasterAbi,
      functionName: 'deposit',
      value: paymasterDeposit,
      account: walletClient.account,
      chain: walletClient.chain,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`paymaster deposit transaction ${hash} failed`);
  }

  return { entry_point, account_factory, paymaster, dex, content_token, token };
}
