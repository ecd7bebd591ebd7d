/**
 * Deploys dauth's contract set: EntryPoint v0.6 (the published 0.6.0 artifact), the account factory (which
 * deploys the account implementation), the verifying paymaster with a deposit at the EntryPoint, the dex,
 * the content-token contract and the ERC-20.
 */
import {
  concat,
  getAddress,
  getContractAddress,
  keccak256,
  zeroHash,
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

/**
 * The deterministic deployment proxy (Arachnid's CREATE2 deployer, "Nick's factory"): a call with
 * `salt (32 bytes) ‖ creation code` deploys that code at `CREATE2(proxy, salt, keccak256(code))`. It exists
 * on nearly every public network and anvil predeploys it.
 */
export const DETERMINISTIC_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';

/**
 * The canonical ERC-4337 EntryPoint v0.6 of public networks. It was deployed through the deterministic
 * deployment proxy with salt 0 and exactly the creation code `@account-abstraction/contracts@0.6.0` publishes
 * (`entryPointBytecode`), so the same proxy call places the same contract at the same address on any chain.
 */
export const CANONICAL_ENTRY_POINT: Address = '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789';

/** Salt of the canonical EntryPoint's deployment through `DETERMINISTIC_DEPLOYER`. */
export const CANONICAL_ENTRY_POINT_SALT: Hex = zeroHash;

/**
 * keccak256 of the canonical EntryPoint's runtime code (it embeds its SenderCreator's address, an
 * immutable that is the same on every chain): what mainnet, the OP Stack chains and Arbitrum hold there.
 */
export const CANONICAL_ENTRY_POINT_CODE_HASH: Hex =
  '0xc93c806e738300b5357ecdc2e971d6438d34d8e4e17b99b758b1f9cac91c8e70';

/** Calldata of the deterministic deployment proxy that deploys the canonical EntryPoint. */
export function canonicalEntryPointDeployData(): Hex {
  return concat([CANONICAL_ENTRY_POINT_SALT, entryPointBytecode]);
}

/** The address `DETERMINISTIC_DEPLOYER` gives `entryPointBytecode` with salt 0 (= `CANONICAL_ENTRY_POINT`). */
export function deterministicEntryPointAddress(): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: DETERMINISTIC_DEPLOYER,
    salt: CANONICAL_ENTRY_POINT_SALT,
    bytecode: entryPointBytecode,
  });
}

/** Whether `code` is the canonical EntryPoint v0.6's runtime code. */
export function isCanonicalEntryPointCode(code: Hex | undefined): boolean {
  return !!code && code !== '0x' && keccak256(code) === CANONICAL_ENTRY_POINT_CODE_HASH;
}

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
  /**
   * An EntryPoint v0.6 that exists already (the canonical one): used instead of deploying one. Without it
   * an EntryPoint is deployed by the deployer (a CREATE address of its own).
   */
  entryPoint?: Address;
};

/**
 * Deploys the contracts and returns their addresses. The creations go out at once, on consecutive nonces of
 * the deployer, and are mined together: none of the constructors calls another contract, so each one's gas
 * estimate holds before the others exist, and on a chain with 12-second blocks the set takes one block
 * instead of one per contract. The paymaster's deposit calls the EntryPoint, so it is sent once the
 * creations are mined.
 */
export async function deployDauthContracts({
  walletClient,
  publicClient,
  platformSigner,
  saleSigner,
  operator,
  treasury,
  paymasterDeposit = parseEther('10'),
  entryPoint,
}: DeployDauthContractsParameters): Promise<DauthContractAddresses> {
  const deployer = walletClient.account.address;
  let nonce = await publicClient.getTransactionCount({ address: deployer, blockTag: 'pending' });
  const creations: { hash: Hex; address: Address }[] = [];

  /** Sends one creation on the next nonce and answers the address it will have (CREATE: deployer, nonce). */
  async function create<const abi extends Abi>(
    abi: abi,
    bytecode: Hex,
    args: ContractConstructorArgs<abi>,
  ): Promise<Address> {
    const txNonce = nonce++;
    const hash = await walletClient.deployContract({
      abi: abi as Abi,
      bytecode,
      args: args as readonly unknown[],
      account: walletClient.account,
      chain: walletClient.chain,
      nonce: txNonce,
    });
    const address = getContractAddress({ from: deployer, nonce: BigInt(txNonce) });
    creations.push({ hash, address });
    return address;
  }

  const entry_point = entryPoint ?? (await create(entryPointAbi, entryPointBytecode, []));
  const account_factory = await create(dauthAccountFactoryAbi, dauthAccountFactoryBytecode, [entry_point]);
  const paymaster = await create(dauthPaymasterAbi, dauthPaymasterBytecode, [entry_point, platformSigner]);
  const dex = await create(dauthDexAbi, dauthDexBytecode, [
    operator ?? deployer,
    saleSigner ?? platformSigner,
  ]);
  const content_token = await create(dauthContentTokenAbi, dauthContentTokenBytecode, [
    operator ?? deployer,
    treasury ?? deployer,
  ]);
  const token = await create(dauthTokenAbi, dauthTokenBytecode, []);

  await Promise.all(
    creations.map(async ({ hash, address }) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (
        receipt.status !== 'success' ||
        !receipt.contractAddress ||
        getAddress(receipt.contractAddress) !== address
      ) {
        throw new Error(`deployment transaction ${hash} failed`);
      }
    }),
  );

  if (paymasterDeposit > 0n) {
    const hash = await walletClient.writeContract({
      address: paymaster,
      abi: dauthPaymasterAbi,
      functionName: 'deposit',
      value: paymasterDeposit,
      account: walletClient.account,
      chain: walletClient.chain,
      nonce: nonce++,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`paymaster deposit transaction ${hash} failed`);
  }

  return { entry_point, account_factory, paymaster, dex, content_token, token };
}

/** What `placeCanonicalEntryPoint` found or did. */
export type CanonicalEntryPointOutcome =
  /** The canonical EntryPoint was there already. */
  | { kind: 'present'; address: Address }
  /** It was not: the deterministic deployment proxy placed it there now. */
  | { kind: 'deployed'; address: Address; txHash: Hex }
  /** The chain has no deterministic deployment proxy, so the canonical address cannot be reached. */
  | { kind: 'no_proxy' }
  /** Something else has code at the canonical address (another chain's contract, or a fork of it). */
  | { kind: 'other_code'; codeHash: Hex };

/**
 * Makes sure the canonical EntryPoint v0.6 is at `CANONICAL_ENTRY_POINT`: uses it when its code is there,
 * otherwise deploys it through the deterministic deployment proxy (salt 0, the published creation code),
 * which anyone may do and which lands at the same address as on public networks.
 */
export async function placeCanonicalEntryPoint({
  walletClient,
  publicClient,
}: Pick<
  DeployDauthContractsParameters,
  'walletClient' | 'publicClient'
>): Promise<CanonicalEntryPointOutcome> {
  const code = await publicClient.getCode({ address: CANONICAL_ENTRY_POINT });
  if (code && code !== '0x') {
    return isCanonicalEntryPointCode(code)
      ? { kind: 'present', address: CANONICAL_ENTRY_POINT }
      : { kind: 'other_code', codeHash: keccak256(code) };
  }
  const proxy = await publicClient.getCode({ address: DETERMINISTIC_DEPLOYER });
  if (!proxy || proxy === '0x') return { kind: 'no_proxy' };
  const txHash = await walletClient.sendTransaction({
    to: DETERMINISTIC_DEPLOYER,
    data: canonicalEntryPointDeployData(),
    account: walletClient.account,
    chain: walletClient.chain,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash });
  const deployed = await publicClient.getCode({ address: CANONICAL_ENTRY_POINT });
  if (receipt.status !== 'success' || !isCanonicalEntryPointCode(deployed)) {
    throw new Error(`the canonical EntryPoint deployment ${txHash} through ${DETERMINISTIC_DEPLOYER} failed`);
  }
  return { kind: 'deployed', address: CANONICAL_ENTRY_POINT, txHash };
}
