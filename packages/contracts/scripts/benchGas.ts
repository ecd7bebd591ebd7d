/**
 * Gas benchmark: dauth's wallet stack against the reference v0.6 stack (SimpleAccount, SimpleAccountFactory,
 * VerifyingPaymaster from the precompiled @account-abstraction/contracts@0.6.0 artifacts), both on one
 * EntryPoint v0.6 on a fresh anvil chain, every operation sponsored by its stack's paymaster and submitted
 * with handleOps. The figure is the gasUsed of the handleOps transaction (calldata and the 21,000 base included).
 * Keys, gas fields and the validity window are fixed, so the report is reproducible to the unit.
 *
 *   npm run bench:gas -w @dauth/contracts             # measure and write gas-report.md
 *   npm run bench:gas -w @dauth/contracts -- --check  # measure and fail if gas-report.md differs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import {
  concat,
  createPublicClient,
  createTestClient,
  encodeAbiParameters,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
  parseGwei,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { formatProfile, profileHandleOps } from './gasProfile.js';
import {
  dauthAccountAbi,
  dauthAccountFactoryAbi,
  dauthDexAbi,
  dauthSessionAccountAbi,
  dauthSessionAccountBytecode,
  dauthTokenAbi,
  dauthTokenBytecode,
  deployDauthContracts,
  encodeInitCode,
  entryPointAbi,
  getSlotSaleHash,
  signSponsoredUserOp,
  signUserOp,
  simpleAccountAbi,
  simpleAccountFactoryAbi,
  simpleAccountFactoryBytecode,
  startAnvil,
  testCounterAbi,
  testCounterBytecode,
  verifyingPaymasterAbi,
  verifyingPaymasterBytecode,
  type UnsignedUserOperation,
  type UserOperation,
} from '../src/index.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const reportPath = join(packageRoot, 'gas-report.md');

/** anvil's first development account: deployer and bundler (beneficiary) in one. */
const DEPLOYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const fixedKey = (label: string) => privateKeyToAccount(keccak256(toHex(`dauth/bench/${label}`)));
const PAYMASTER_SIGNER = fixedKey('paymaster-signer');
const OWNERS = Array.from({ length: 11 }, (_, i) => fixedKey(`owner/${i}`));
/** Fixed, far-apart window: the signed bytes, hence the calldata cost, never depend on the clock. */
const VALID_UNTIL = 4_102_444_800; // 2100-01-01
const VALID_AFTER = 1_700_000_000;
const GAS_FIELDS = {
  callGasLimit: 1_000_000n,
  verificationGasLimit: 1_000_000n,
  preVerificationGas: 100_000n,
  maxFeePerGas: parseGwei('10'),
  maxPriorityFeePerGas: parseGwei('1'),
};
const HANDLE_OPS_GAS = 15_000_000n;
const TRANSFER_SELECTOR: Hex = '0xa9059cbb';
const DUMMY_SIGNATURE: Hex = `0x${'00'.repeat(65)}`;

/** The v0.6 sample VerifyingPaymaster's layout: paymaster ‖ abi.encode(uint48 validUntil, uint48 validAfter) ‖ 65-byte signature. */
function encodeSamplePaymasterAndData(
  paymaster: Address,
  validUntil: number,
  validAfter: number,
  signature: Hex,
): Hex {
  return concat([
    paymaster,
    encodeAbiParameters([{ type: 'uint48' }, { type: 'uint48' }], [validUntil, validAfter]),
    signature,
  ]);
}

/** What differs between the two stacks. */
type Stack = {
  factory: Address;
  getAddress: (owner: Address, salt: bigint) => Promise<Address>;
  execute: (target: Address, data: Hex) => Hex;
  executeBatch: (target: Address, data: Hex[]) => Hex;
  sign: (op: UnsignedUserOperation, owner: LocalAccount) => Promise<UserOperation>;
};

type Row = { key: string; label: string; reference: number; dauth: number; target: number };
/** A figure of the slot economy (no reference stack has one). */
type EconomyRow = { label: string; gas: number; note: string; key?: string };

/** The session-key rows that carry a `key`, by key (bench:all's session-gas target reads them). */
function sessionFigures(sessions: EconomyRow[]): Record<string, number> {
  return Object.fromEntries(sessions.flatMap((row) => (row.key ? [[row.key, row.gas]] : [])));
}

async function main(): Promise<void> {
  // --profile needs anvil's step traces (debug_traceTransaction with the struct logger); gas is the same.
  const tracing = process.argv.includes('--profile') ? ['--steps-tracing'] : [];
  const anvil = await startAnvil({ args: ['--hardfork', 'prague', ...tracing] });
  try {
    const [rows, economy, sessions] = await measure(anvil.rpcUrl);
    const report = formatReport(rows, economy, sessions);
    // BENCH_JSON=<file>: the figures, machine-readable, for `npm run bench:all`.
    if (process.env.BENCH_JSON) {
      const figures = Object.fromEntries(
        rows.map((row) => [
          row.key,
          { reference: row.reference, dauth: row.dauth, ratio: row.dauth / row.reference },
        ]),
      );
      writeFileSync(
        process.env.BENCH_JSON,
        `${JSON.stringify({ bench: 'gas', rows: figures, economy, sessions: sessionFigures(sessions) }, null, 2)}\n`,
      );
    }
    const markdown = await prettier.format(report.text, {
      ...(await prettier.resolveConfig(reportPath)),
      parser: 'markdown',
    });
    if (process.argv.includes('--check')) {
      const committed = readFileSync(reportPath, 'utf8');
      if (committed !== markdown) {
        console.error('gas-report.md is out of date; run `npm run bench:gas` and commit it. Fresh report:\n');
        console.error(markdown);
        process.exitCode = 1;
      } else console.log('gas-report.md is up to date');
    } else {
      writeFileSync(reportPath, markdown);
      console.log(markdown);
    }
    if (report.missed.length > 0) {
      console.error(`target missed: ${report.missed.join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    await anvil.stop();
  }
}

async function measure(rpcUrl: string): Promise<[Row[], EconomyRow[], EconomyRow[]]> {
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain: foundry, transport });
  const walletClient = createWalletClient({
    chain: foundry,
    transport,
    account: privateKeyToAccount(DEPLOYER_KEY),
  });
  const chainId = foundry.id;
  const bundler = walletClient.account.address;

  async function deploy(abi: readonly unknown[], bytecode: Hex, args: readonly unknown[]): Promise<Address> {
    const hash = await walletClient.deployContract({ abi, bytecode, args });
    const { contractAddress } = await publicClient.waitForTransactionReceipt({ hash });
    if (!contractAddress) throw new Error('deployment failed');
    return contractAddress;
  }
  async function send(hash: Promise<Hex>) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} reverted`);
    return receipt;
  }

  const dauth = await deployDauthContracts({
    walletClient,
    publicClient,
    platformSigner: PAYMASTER_SIGNER.address,
    paymasterDeposit: parseEther('100'),
  });
  const entryPoint = dauth.entry_point;
  const referenceFactory = await deploy(simpleAccountFactoryAbi, simpleAccountFactoryBytecode, [entryPoint]);
  const referencePaymaster = await deploy(verifyingPaymasterAbi, verifyingPaymasterBytecode, [
    entryPoint,
    PAYMASTER_SIGNER.address,
  ]);
  await send(
    walletClient.writeContract({
      address: referencePaymaster,
      abi: verifyingPaymasterAbi,
      functionName: 'deposit',
      value: parseEther('100'),
    }),
  );
  const counter = await deploy(testCounterAbi, testCounterBytecode, []);
  const increment = encodeFunctionData({ abi: testCounterAbi, functionName: 'increment' });

  const dauthStack: Stack = {
    factory: dauth.account_factory,
    getAddress: (owner, salt) =>
      publicClient.readContract({
        address: dauth.account_factory,
        abi: dauthAccountFactoryAbi,
        functionName: 'getAddress',
        args: [owner, salt],
      }),
    execute: (target, data) =>
      encodeFunctionData({ abi: dauthAccountAbi, functionName: 'execute', args: [target, 0n, data] }),
    executeBatch: (target, data) =>
      encodeFunctionData({
        abi: dauthAccountAbi,
        functionName: 'executeBatch',
        args: [data.map(() => target), [], data],
      }),
    sign: (op, owner) =>
      signSponsoredUserOp(op, {
        entryPoint,
        chainId,
        owner,
        paymaster: dauth.paymaster,
        paymasterSigner: PAYMASTER_SIGNER,
        validUntil: VALID_UNTIL,
        validAfter: VALID_AFTER,
      }),
  };

  const referenceStack: Stack = {
    factory: referenceFactory,
    getAddress: (owner, salt) =>
      publicClient.readContract({
        address: referenceFactory,
        abi: simpleAccountFactoryAbi,
        functionName: 'getAddress',
        args: [owner, salt],
      }),
    execute: (target, data) =>
      encodeFunctionData({ abi: simpleAccountAbi, functionName: 'execute', args: [target, 0n, data] }),
    executeBatch: (target, data) =>
      encodeFunctionData({
        abi: simpleAccountAbi,
        functionName: 'executeBatch',
        args: [data.map(() => target), data],
      }),
    // The sample paymaster's hash includes its own per-sender counter, so it is read from the contract. It
    // hashes the operation's raw ABI encoding, in which offsets depend on field lengths: the placeholder
    // paymasterAndData must already have the final length.
    sign: async (op, owner) => {
      const placeholder = encodeSamplePaymasterAndData(
        referencePaymaster,
        VALID_UNTIL,
        VALID_AFTER,
        DUMMY_SIGNATURE,
      );
      const hash = await publicClient.readContract({
        address: referencePaymaster,
        abi: verifyingPaymasterAbi,
        functionName: 'getHash',
        args: [
          { ...op, paymasterAndData: placeholder, signature: DUMMY_SIGNATURE },
          VALID_UNTIL,
          VALID_AFTER,
        ],
      });
      const signature = await PAYMASTER_SIGNER.signMessage({ message: { raw: hash } });
      const paymasterAndData = encodeSamplePaymasterAndData(
        referencePaymaster,
        VALID_UNTIL,
        VALID_AFTER,
        signature,
      );
      const sponsored = { ...op, paymasterAndData, signature: '0x' as Hex };
      return { ...sponsored, signature: await signUserOp(sponsored, { owner, entryPoint, chainId }) };
    },
  };

  /** The last handleOps transaction, for `--profile`. */
  let lastHash: Hex = '0x';
  /** Submits `ops` in one handleOps and returns its gasUsed, after checking every operation succeeded. */
  async function handleOps(ops: UserOperation[]): Promise<number> {
    // Simulating first turns an EntryPoint rejection (FailedOp "AAxx ...") into a readable error.
    const { request } = await publicClient.simulateContract({
      account: walletClient.account,
      address: entryPoint,
      abi: entryPointAbi,
      functionName: 'handleOps',
      args: [ops, bundler],
      gas: HANDLE_OPS_GAS,
    });
    const receipt = await send(walletClient.writeContract(request));
    lastHash = receipt.transactionHash;
    const events = parseEventLogs({
      abi: entryPointAbi,
      eventName: 'UserOperationEvent',
      logs: receipt.logs,
    });
    if (events.length !== ops.length || events.some((event) => !event.args.success)) {
      throw new Error('an operation of the benchmark failed');
    }
    return Number(receipt.gasUsed);
  }

  async function operation(stack: Stack, owner: LocalAccount, callData: (target: Address) => Hex) {
    const sender = await stack.getAddress(owner.address, 0n);
    const deployed = (await publicClient.getCode({ address: sender })) !== undefined;
    const nonce = await publicClient.readContract({
      address: entryPoint,
      abi: entryPointAbi,
      functionName: 'getNonce',
      args: [sender, 0n],
    });
    const initCode = deployed ? '0x' : encodeInitCode(stack.factory, owner.address, 0n);
    return stack.sign({ sender, nonce, initCode, callData: callData(counter), ...GAS_FIELDS }, owner);
  }

  /** `--profile`: the first and later operation's transactions of each stack. */
  const profiled: [string, Hex][] = [];
  async function measureStack(stack: Stack, name: string) {
    const [single, ...bundled] = OWNERS as [LocalAccount, ...LocalAccount[]];
    const one = (target: Address) => stack.execute(target, increment);
    const ten = (target: Address) => stack.executeBatch(target, Array<Hex>(10).fill(increment));
    const first = await handleOps([await operation(stack, single, one)]);
    profiled.push([`${name}, first operation`, lastHash]);
    const later = await handleOps([await operation(stack, single, one)]);
    profiled.push([`${name}, later operation`, lastHash]);
    const batch = await handleOps([await operation(stack, single, ten)]);
    const firstBundle = await handleOps(
      await Promise.all(bundled.map((owner) => operation(stack, owner, one))),
    );
    const laterBundle = await handleOps(
      await Promise.all(bundled.map((owner) => operation(stack, owner, one))),
    );
    const count = await publicClient.readContract({
      address: counter,
      abi: testCounterAbi,
      functionName: 'counts',
      args: [await stack.getAddress(single.address, 0n)],
    });
    if (count !== 12n) throw new Error(`counter of the single wallet is ${count}, expected 12`);
    return { first, later, batch, firstBundle: firstBundle / 10, laterBundle: laterBundle / 10 };
  }

  /**
   * The slot economy on the dauth stack: a content wallet operated through the dex by the slot owner's main
   * wallet (the wallet's owner is the dex), against the same call as the content wallet's own operation (how
   * an EOA-owned content wallet was operated); and a priced purchase.
   */
  async function measureEconomy(): Promise<EconomyRow[]> {
    const [seller, buyer, legacy] = [
      fixedKey('economy/seller'),
      fixedKey('economy/buyer'),
      fixedKey('economy/legacy'),
    ];
    const sellerWallet = await dauthStack.getAddress(seller.address, 0n);
    const buyerWallet = await dauthStack.getAddress(buyer.address, 0n);
    const slot = 1_234_567_890_123_456_789n;
    const content = await dauthStack.getAddress(dauth.dex, slot);
    await send(walletClient.sendTransaction({ to: buyerWallet, value: parseEther('10') }));
    await send(
      walletClient.writeContract({
        address: dauth.dex,
        abi: dauthDexAbi,
        functionName: 'buy_slot',
        args: [sellerWallet, slot, content],
      }),
    );
    await send(
      walletClient.writeContract({
        address: dauth.account_factory,
        abi: dauthAccountFactoryAbi,
        functionName: 'createAccount',
        args: [dauth.dex, slot],
      }),
    );
    // Warm-up: both main wallets deployed, the counter's slot of the content wallet written once.
    const viaDex = (target: Address) =>
      dauthStack.execute(
        dauth.dex,
        encodeFunctionData({
          abi: dauthDexAbi,
          functionName: 'executeFromSlot',
          args: [slot, target, 0n, increment],
        }),
      );
    await handleOps([await operation(dauthStack, seller, viaDex)]);
    await handleOps([await operation(dauthStack, buyer, (target) => dauthStack.execute(target, increment))]);
    await handleOps([await operation(dauthStack, legacy, (target) => dauthStack.execute(target, increment))]);
    const contentViaDex = await handleOps([await operation(dauthStack, seller, viaDex)]);
    const contentOwnOperation = await handleOps([
      await operation(dauthStack, legacy, (target) => dauthStack.execute(target, increment)),
    ]);

    const price = parseEther('1');
    // A fixed deadline (2100-01-01), not one read off the clock: the authorisation's bytes, and so
    // the calldata gas, must be the same on every run for `--check` to compare exactly.
    const deadline = 4_102_444_800n;
    const authorisation = await PAYMASTER_SIGNER.signMessage({
      message: {
        raw: getSlotSaleHash({
          dex: dauth.dex,
          chainId,
          slot,
          seller: sellerWallet,
          buyer: buyerWallet,
          price,
          transferCount: 0n,
          deadline,
        }),
      },
    });
    const purchase = await handleOps([
      await operation(dauthStack, buyer, () =>
        encodeFunctionData({
          abi: dauthAccountAbi,
          functionName: 'execute',
          args: [
            dauth.dex,
            price,
            encodeFunctionData({
              abi: dauthDexAbi,
              functionName: 'purchase',
              args: [slot, sellerWallet, deadline, authorisation],
            }),
          ],
        }),
      ),
    ]);
    const owner = await publicClient.readContract({
      address: dauth.dex,
      abi: dauthDexAbi,
      functionName: 'ownerOf',
      args: [slot],
    });
    if (owner !== buyerWallet) throw new Error('the benchmark purchase did not move the slot');
    return [
      {
        label:
          'Content wallet, 1 storage write, through the dex (slot owner’s main wallet → `executeFromSlot`)',
        gas: contentViaDex,
        note: `${(contentViaDex - contentOwnOperation).toLocaleString('en-US')} more than the content wallet’s own operation (${contentOwnOperation.toLocaleString('en-US')}, the EOA-owned path)`,
      },
      {
        label: 'Priced purchase: buyer’s main wallet pays the seller’s and takes the slot (`purchase`)',
        gas: purchase,
        note: 'one operation; price and slot move together',
      },
    ];
  }

  /**
   * Session keys: a legacy wallet joins a DauthSessionAccount as its vault; owner and session-key operations
   * of the same call (one counter write the vault made before) beside each other. The clock is set to a fixed
   * time first: the session signature names the day, and its bytes must not change between runs.
   */
  async function measureSessions(): Promise<EconomyRow[]> {
    const owner = fixedKey('session/owner');
    const key = fixedKey('session/key');
    const testClient = createTestClient({ chain: foundry, transport, mode: 'anvil' });
    const fixedNow = 4_000_000_000; // 2096-10-02, inside the paymaster window
    await testClient.setNextBlockTimestamp({ timestamp: BigInt(fixedNow) });
    await testClient.mine({ blocks: 1 });
    const day = Math.floor(fixedNow / 86_400);
    const one = (target: Address) => dauthStack.execute(target, increment);
    await handleOps([await operation(dauthStack, owner, one)]);
    const vault = await dauthStack.getAddress(owner.address, 0n);
    const account = await deploy(dauthSessionAccountAbi, dauthSessionAccountBytecode, [
      entryPoint,
      owner.address,
      vault,
    ]);
    await handleOps([
      await operation(dauthStack, owner, () =>
        encodeFunctionData({ abi: dauthAccountAbi, functionName: 'changeOwner', args: [account] }),
      ),
    ]);
    async function sessionOperation(
      signer: LocalAccount,
      callData: Hex,
      session: boolean,
    ): Promise<UserOperation> {
      const nonce = await publicClient.readContract({
        address: entryPoint,
        abi: entryPointAbi,
        functionName: 'getNonce',
        args: [account, 0n],
      });
      const signed = await dauthStack.sign(
        { sender: account, nonce, initCode: '0x', callData, ...GAS_FIELDS },
        signer,
      );
      if (!session) return signed;
      return { ...signed, signature: concat([signer.address, toHex(day, { size: 6 }), signed.signature]) };
    }
    const ownerFirst = await handleOps([await sessionOperation(owner, one(counter), false)]);
    const ownerLater = await handleOps([await sessionOperation(owner, one(counter), false)]);
    const grant = await handleOps([
      await sessionOperation(
        owner,
        dauthStack.execute(
          account,
          encodeFunctionData({
            abi: dauthSessionAccountAbi,
            functionName: 'addSessionKey',
            args: [
              key.address,
              {
                targets: [counter],
                selectors: [increment],
                maxValuePerCall: parseEther('1'),
                maxValuePerDay: parseEther('1'),
                tokens: [],
                tokenLimitsPerDay: [],
                validUntil: fixedNow + 30 * 86_400,
              },
            ],
          }),
        ),
        false,
      ),
    ]);
    const sessionFirst = await handleOps([await sessionOperation(key, one(counter), true)]);
    const sessionLater = await handleOps([await sessionOperation(key, one(counter), true)]);

    // At the service's limits (docs/session-keys.md, "Limits"): a grant of 32 entries, 16 tokens each capped and
    // callable by `transfer`, replacing the key above; then one session operation of 16 calls, `transfer` on
    // each token to a new recipient (every call reads its allow-list entry and cap and opens a day counter).
    const tokens: Address[] = [];
    for (let i = 0; i < 16; i++) {
      const token = await deploy(dauthTokenAbi, dauthTokenBytecode, []);
      await send(
        walletClient.writeContract({
          address: token,
          abi: dauthTokenAbi,
          functionName: 'mint',
          args: [vault, parseEther('1000')],
        }),
      );
      tokens.push(token);
    }
    const batch = (dest: Address[], func: Hex[]) =>
      encodeFunctionData({
        abi: dauthSessionAccountAbi,
        functionName: 'executeBatch',
        args: [dest, [], func],
      });
    const largestKey = fixedKey('session/largest-key');
    const grantLargest = await handleOps([
      await sessionOperation(
        owner,
        batch(
          [account, account],
          [
            encodeFunctionData({
              abi: dauthSessionAccountAbi,
              functionName: 'revokeSessionKey',
              args: [key.address],
            }),
            encodeFunctionData({
              abi: dauthSessionAccountAbi,
              functionName: 'addSessionKey',
              args: [
                largestKey.address,
                {
                  targets: tokens,
                  selectors: tokens.map(() => TRANSFER_SELECTOR),
                  maxValuePerCall: 0n,
                  maxValuePerDay: 0n,
                  tokens,
                  tokenLimitsPerDay: tokens.map(() => parseEther('1')),
                  validUntil: fixedNow + 30 * 86_400,
                },
              ],
            }),
          ],
        ),
        false,
      ),
    ]);
    const sixteenCalls = await handleOps([
      await sessionOperation(
        largestKey,
        batch(
          tokens,
          tokens.map((_, i) =>
            encodeFunctionData({
              abi: dauthTokenAbi,
              functionName: 'transfer',
              args: [privateKeyToAccount(keccak256(toHex(`dauth/bench/recipient/${i}`))).address, 1n],
            }),
          ),
        ),
        true,
      ),
    ]);
    const more = (value: number) =>
      `${(value - ownerLater).toLocaleString('en-US')} more than the owner’s later operation`;
    return [
      {
        label: 'Owner operation through the session account, first (vault = a legacy wallet)',
        gas: ownerFirst,
        note: 'first operation of the session account (its nonce slot)',
      },
      {
        label: 'Owner operation through the session account, later',
        key: 'owner_later',
        gas: ownerLater,
        note: `${(ownerLater - ours.later).toLocaleString('en-US')} more than a legacy wallet’s own later operation (${ours.later.toLocaleString('en-US')})`,
      },
      {
        label: 'Grant: owner registers a session key (1 allowed call, `addSessionKey`)',
        gas: grant,
        note: 'one operation of the owner',
      },
      {
        label: 'Session-key operation, first',
        key: 'session_first',
        gas: sessionFirst,
        note: more(sessionFirst),
      },
      {
        label: 'Session-key operation, later',
        key: 'session_later',
        gas: sessionLater,
        note: more(sessionLater),
      },
      {
        label:
          'Grant at the service’s maximum: 32 entries (16 tokens, `transfer` allowed and capped), replacing a key',
        gas: grantLargest,
        note: `${Math.round((grantLargest - grant) / 31).toLocaleString('en-US')} per entry more than the 1-call grant`,
      },
      {
        label: 'Session-key operation, 16 calls: `transfer` on 16 capped tokens to new recipients',
        gas: sixteenCalls,
        note: `${Math.round((sixteenCalls - sessionLater) / 15).toLocaleString('en-US')} per call more than the 1-call operation`,
      },
    ];
  }

  const reference = await measureStack(referenceStack, 'reference');
  const ours = await measureStack(dauthStack, 'dauth');
  const economy = await measureEconomy();
  const sessions = await measureSessions();
  if (process.argv.includes('--profile')) {
    const implementation = (address: Address) =>
      publicClient.readContract({
        address,
        abi: dauthAccountFactoryAbi,
        functionName: 'accountImplementation',
      });
    const names = new Map<string, string>(
      (
        [
          [entryPoint, 'EntryPoint'],
          // The EntryPoint's first creation (nonce 1): what calls the factory with initCode.
          [getContractAddress({ from: entryPoint, nonce: 1n }), 'SenderCreator'],
          [bundler, 'beneficiary'],
          [counter, 'counter'],
          [dauth.account_factory, 'DauthAccountFactory'],
          [await implementation(dauth.account_factory), 'DauthAccount (implementation)'],
          [dauth.paymaster, 'DauthPaymaster'],
          [await dauthStack.getAddress(OWNERS[0]!.address, 0n), 'wallet'],
          [referenceFactory, 'SimpleAccountFactory'],
          [await implementation(referenceFactory), 'SimpleAccount (implementation)'],
          [referencePaymaster, 'VerifyingPaymaster'],
          [await referenceStack.getAddress(OWNERS[0]!.address, 0n), 'wallet'],
        ] as [Address, string][]
      ).map(([address, name]) => [getAddress(address), name]),
    );
    for (const [title, hash] of profiled) {
      console.log(`${formatProfile(title, await profileHandleOps(publicClient, hash, names))}\n`);
    }
  }
  return [
    [
      {
        key: 'first',
        label: 'First operation: deploy wallet + 1 storage write',
        reference: reference.first,
        dauth: ours.first,
        target: 0.5,
      },
      {
        key: 'later',
        label: 'Later operation: 1 storage write',
        reference: reference.later,
        dauth: ours.later,
        target: 0.9,
      },
      {
        key: 'batch',
        label: '`executeBatch` of 10 storage writes',
        reference: reference.batch,
        dauth: ours.batch,
        target: 0.9,
      },
      {
        key: 'bundle_first',
        label: 'Bundle of 10 wallets, first operations (per operation)',
        reference: reference.firstBundle,
        dauth: ours.firstBundle,
        target: 0.9,
      },
      {
        key: 'bundle_later',
        label: 'Bundle of 10 wallets, later operations (per operation)',
        reference: reference.laterBundle,
        dauth: ours.laterBundle,
        target: 0.9,
      },
    ],
    economy,
    sessions,
  ];
}

/** Issue 14's targets: first operation ≤ 160,000 gas, later operation ≤ 0.85 × the reference's. */
function roundTwo(rows: Row[]): string[] {
  const gas = (value: number) => Math.round(value).toLocaleString('en-US');
  const row = (key: string) => rows.find((candidate) => candidate.key === key)!;
  const status = (value: number, limit: number) =>
    value <= limit ? 'met' : `missed by ${gas(value - limit)} gas`;
  const first = row('first');
  const later = row('later');
  const laterLimit = 0.85 * later.reference;
  return [
    `| ${first.label} | ${gas(first.dauth)} | ≤ 160,000 | ${status(first.dauth, 160_000)} |`,
    `| ${later.label} | ${gas(later.dauth)} (${(later.dauth / later.reference).toFixed(3)}) | ≤ ${gas(laterLimit)} (0.85) | ${status(later.dauth, laterLimit)} |`,
  ];
}

function formatReport(
  rows: Row[],
  economy: EconomyRow[],
  sessions: EconomyRow[],
): { text: string; missed: string[] } {
  const gas = (value: number) => Math.round(value).toLocaleString('en-US');
  const missed: string[] = [];
  const lines = rows.map((row) => {
    const ratio = row.dauth / row.reference;
    const met = ratio <= row.target;
    if (!met) missed.push(`${row.label}: ${ratio.toFixed(3)} > ${row.target}`);
    return `| ${row.label} | ${gas(row.reference)} | ${gas(row.dauth)} | ${ratio.toFixed(3)} | ≤ ${row.target.toFixed(2)} ${met ? 'met' : 'MISSED'} |`;
  });
  const text = `# Gas report

Generated by \`npm run bench:gas\` (\`packages/contracts/scripts/benchGas.ts\`); \`npm run bench:gas -- --check\`
fails when this file no longer matches a fresh measurement.

Gas used by the \`handleOps\` transaction on a fresh anvil chain (hardfork prague), including the 21,000 base
cost and calldata. Reference: SimpleAccount, SimpleAccountFactory and VerifyingPaymaster as precompiled in
\`@account-abstraction/contracts@0.6.0\`. Both stacks run on the same EntryPoint v0.6, every operation is
sponsored by the stack's own verifying paymaster, and the call target is one counter write per call. Keys,
gas fields and the paymaster window are fixed, so the numbers are exact.

| Case | Reference | dauth | dauth / reference | Target |
| --- | ---: | ---: | ---: | --- |
${lines.join('\n')}

## Round 2 targets (issue 14)

Reported, not enforced by \`--check\`. The first operation's target lies below what EntryPoint v0.6, the EVM
and the specified wallet creation leave; the later operation's needs changes beyond these contracts' security
model and the server's layouts. docs/contracts.md ("Gas") breaks both down and names the next steps.

| Case | dauth | Target | Status |
| --- | ---: | ---: | --- |
${roundTwo(rows).join('\n')}

## Slot economy (dauth only)

Same chain and gas fields, later operations of deployed wallets, each sponsored. The content wallet's owner is
the dex, so a content-wallet call is a call of the slot owner's main wallet through \`DauthDex.executeFromSlot\`
(its authority is the dex's record at execution time).

| Case | dauth | Note |
| --- | ---: | --- |
${economy.map((row) => `| ${row.label} | ${gas(row.gas)} | ${row.note} |`).join('\n')}

## Session keys (dauth only)

A legacy wallet (above) hands its ownership to a \`DauthSessionAccount\` whose vault it is; every call is then
still made by the wallet. The call is one counter write the wallet had made before. A session-key operation is
checked against its policy during validation (docs/contracts.md, "Session keys").

| Case | dauth | Note |
| --- | ---: | --- |
${sessions.map((row) => `| ${row.label} | ${gas(row.gas)} | ${row.note} |`).join('\n')}
`;
  return { text, missed };
}

await main();
