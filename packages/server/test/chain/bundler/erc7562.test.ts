import {
  dauthSessionAccountAbi,
  dauthSessionAccountBytecode,
  encodeInitCode,
  signSponsoredUserOp,
  type UserOperation,
} from '@dauth/contracts';
import {
  concat,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  numberToHex,
  type PublicClient,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWalletCalls } from '../../../src/chain/contractCalls.js';
import { EMBEDDED_CHAIN_KEYS } from '../../../src/chain/devAccounts.js';
import { ownerFromPrivateKey } from '../../../src/chain/operations/operationOwner.js';
import type { Call } from '../../../src/chain/types.js';
import { startTestChain, type TestChain } from '../chainTestHelpers.js';
import { traceValidation, type ValidationTrace } from './erc7562.js';

/**
 * The ERC-7562 opcode and storage rules a safe-mode public bundler applies, checked on dauth's operations
 * from anvil's struct-log trace of `simulateValidation` (Alto's own tracer cannot run on anvil: see
 * docs/operations.md, "Which bundler"). What a rule forbids shows up here as a finding, not a guess.
 */
describe('ERC-7562 rules kept by the validation of dauth operations', () => {
  let t: TestChain;
  beforeAll(async () => {
    t = await startTestChain();
  });
  afterAll(() => t?.close());

  async function signed(ownerKey: `0x${string}`, nonce: bigint, calls: Call[]): Promise<UserOperation> {
    const owner = privateKeyToAccount(ownerKey);
    const { contracts, chainId } = t.chain.info;
    const fees = await t.chain.gateway.fees();
    const now = Math.floor(Date.now() / 1000);
    return signSponsoredUserOp(
      {
        sender: t.chain.gateway.walletAddress(owner.address, 0n),
        nonce,
        initCode: nonce === 0n ? encodeInitCode(contracts.account_factory, owner.address, 0n) : '0x',
        callData: encodeWalletCalls(calls),
        callGasLimit: 100_000n,
        verificationGasLimit: 400_000n,
        preVerificationGas: 60_000n,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      },
      {
        entryPoint: contracts.entry_point,
        chainId,
        owner,
        paymaster: contracts.paymaster,
        paymasterSigner: privateKeyToAccount(EMBEDDED_CHAIN_KEYS.paymasterSigner),
        validUntil: now + 300,
        validAfter: now - 60,
      },
    );
  }

  /** The findings a safe-mode bundler would act on. */
  async function findings(op: UserOperation, trace: ValidationTrace) {
    const sender = op.sender.toLowerCase();
    const paymaster = t.chain.info.contracts.paymaster.toLowerCase();
    const codeless: string[] = [];
    for (const { address } of trace.touched) {
      if (address === sender || BigInt(address) < 0x100n) continue; // OP-042: the sender; precompiles
      const code = await t.chain.gateway.client.getCode({ address: address as `0x${string}` });
      if (!code || code === '0x') codeless.push(address);
    }
    return {
      // OP-011/012: no banned opcode in any entity.
      banned: trace.banned,
      // OP-031: the factory uses CREATE2 once (a first operation), nobody else.
      create2: trace.create2,
      // STO-010 / STO-031: storage outside the account's own and the paymaster's own.
      otherStorage: trace.storage.filter(
        (a) =>
          !(a.entity === 'account' && a.address === sender) &&
          !(a.entity === 'paymaster' && a.address === paymaster),
      ),
      // STO-031: the paymaster's own storage, allowed only to a staked paymaster.
      paymasterOwnSlots: trace.storage
        .filter((a) => a.entity === 'paymaster')
        .map((a) => `${a.op} ${a.slot}`),
      // OP-041: no EXTCODE* or call to an address without code.
      codeless,
    };
  }

  it('a first (deploying) and a later operation of a main wallet, and one that acts through the dex', async () => {
    const key = generatePrivateKey();
    const owner = privateKeyToAccount(key).address;
    const client = t.chain.gateway.client as unknown as PublicClient;
    const entryPoint = t.chain.info.contracts.entry_point;
    const transfer = [t.chain.calls.nativeTransfer(owner, 0n)];

    const first = await signed(key, 0n, transfer);
    expect(await findings(first, await traceValidation(client, entryPoint, first))).toEqual({
      banned: [],
      create2: { factory: 1, account: 0, paymaster: 0 },
      otherStorage: [],
      paymasterOwnSlots: ['SLOAD 0x1'], // verifyingSigner: the paymaster must be staked
      codeless: [],
    });

    await t.chain.operations.submitOperation({
      owner: ownerFromPrivateKey(Buffer.from(key.slice(2), 'hex')),
      salt: 0n,
      calls: transfer,
    });
    // A later one; and one whose call goes to the dex (a content wallet's action through executeFromSlot):
    // validation never reads the dex, the slot's authority is resolved at execution.
    const dexCall: Call = { to: t.chain.info.contracts.dex, value: 0n, data: '0x12345678' };
    for (const calls of [transfer, [dexCall]]) {
      const later = await signed(key, 1n, calls);
      expect(await findings(later, await traceValidation(client, entryPoint, later))).toEqual({
        banned: [],
        create2: { factory: 0, account: 0, paymaster: 0 },
        otherStorage: [],
        paymasterOwnSlots: ['SLOAD 0x1'],
        codeless: [],
      });
    }
  });

  it('an owner and a session-key operation of a DauthSessionAccount (its limits written to its own storage)', async () => {
    const client = t.chain.gateway.client as unknown as PublicClient;
    const { contracts, chainId } = t.chain.info;
    const ownerKey = generatePrivateKey();
    const owner = privateKeyToAccount(ownerKey);
    const sessionKey = privateKeyToAccount(generatePrivateKey());
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const deployer = createWalletClient({
      account: privateKeyToAccount(EMBEDDED_CHAIN_KEYS.deployer),
      transport: http(t.chain.info.rpcUrl),
    });
    const receipt = await client.waitForTransactionReceipt({
      hash: await deployer.deployContract({
        abi: dauthSessionAccountAbi,
        bytecode: dauthSessionAccountBytecode,
        args: [contracts.entry_point, owner.address, zeroAddress],
        chain: null,
      }),
    });
    const account = getAddress(receipt.contractAddress!);
    const execute = (target: Hex, value: bigint, data: Hex) =>
      encodeFunctionData({
        abi: dauthSessionAccountAbi,
        functionName: 'execute',
        args: [target, value, data],
      });
    const now = Number((await client.getBlock()).timestamp);
    const addKey = encodeFunctionData({
      abi: dauthSessionAccountAbi,
      functionName: 'addSessionKey',
      args: [
        sessionKey.address,
        {
          targets: [recipient],
          selectors: ['0x00000000'],
          maxValuePerCall: 1n,
          maxValuePerDay: 1n,
          tokens: [],
          tokenLimitsPerDay: [],
          validUntil: now + 86_400,
        },
      ],
    });
    const ownerOp = { callData: execute(account, 0n, addKey) };
    /** An operation of the session account signed by `signer` (with `day`: the session key's form). */
    const sessionAccountOp = async (signer: typeof owner, callData: Hex, day?: number) => {
      const nonce = await t.chain.gateway.getNonce(account);
      const fees = await t.chain.gateway.fees();
      const signed = await signSponsoredUserOp(
        {
          sender: account,
          nonce,
          initCode: '0x',
          callData,
          callGasLimit: 200_000n,
          verificationGasLimit: 400_000n,
          preVerificationGas: 60_000n,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        },
        {
          entryPoint: contracts.entry_point,
          chainId,
          owner: signer,
          paymaster: contracts.paymaster,
          paymasterSigner: privateKeyToAccount(EMBEDDED_CHAIN_KEYS.paymasterSigner),
          validUntil: now + 300,
          validAfter: now - 60,
        },
      );
      if (day === undefined) return signed;
      return {
        ...signed,
        signature: concat([signer.address, numberToHex(day, { size: 6 }), signed.signature]),
      };
    };

    const byOwner = await sessionAccountOp(owner, ownerOp.callData);
    const ownerFindings = await findings(
      byOwner,
      await traceValidation(client, contracts.entry_point, byOwner),
    );
    expect(ownerFindings).toMatchObject({
      banned: [],
      otherStorage: [],
      paymasterOwnSlots: ['SLOAD 0x1'],
      codeless: [],
    });
    // Registered through the pipeline (the owner's operation), then the session key acts.
    const registered = await t.chain.operations.submitOperation({
      owner: ownerFromPrivateKey(Buffer.from(ownerKey.slice(2), 'hex')),
      salt: 0n,
      sender: account,
      callData: ownerOp.callData,
    });
    expect(registered.success).toBe(true);
    const day = Math.floor((Number((await client.getBlock()).timestamp) + 1) / 86_400);
    const bySessionKey = await sessionAccountOp(sessionKey, execute(recipient, 1n, '0x'), day);
    const trace = await traceValidation(client, contracts.entry_point, bySessionKey);
    expect(await findings(bySessionKey, trace)).toMatchObject({
      banned: [], // the day comes from the signature, never from TIMESTAMP
      otherStorage: [],
      paymasterOwnSlots: ['SLOAD 0x1'],
      codeless: [],
    });
    // Its policy and day counters are the account's own storage, read and written in validation (STO-010).
    expect(trace.storage.filter((a) => a.entity === 'account' && a.op === 'SSTORE').length).toBeGreaterThan(
      0,
    );
  });
});
