import { dauthAccountAbi, dauthAccountFactoryAbi, encodeInitCode, entryPointAbi } from '@dauth/contracts';
import {
  concat,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  keccak256,
  parseEventLogs,
  slice,
  toFunctionSelector,
  toHex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserOperationRejectedError } from '../../src/chain/chainErrors.js';
import { ANVIL_DEV_KEYS } from '../../src/chain/devAccounts.js';
import type { OperationOwner } from '../../src/chain/operations/operationOwner.js';
import { PaymasterSponsor } from '../../src/chain/operations/sponsorship.js';
import type { Address } from '../../src/chain/types.js';
import { DexLedger } from '../../src/chain/dexLedger.js';
import { slotLedgerOver } from '../../src/composition/slots.js';
import { AppError, OperationReverted } from '../../src/errors.js';
import {
  bundledOperations,
  impostor,
  randomOwner,
  startTestChain,
  type TestChain,
  contractSettings,
} from './chainTestHelpers.js';

const executeSelector = toFunctionSelector('execute(address,uint256,bytes)');
const executeBatchSelector = toFunctionSelector('executeBatch(address[],uint256[],bytes[])');

describe('operation pipeline (real anvil)', () => {
  let t: TestChain;
  let token: Address;
  beforeAll(async () => {
    t = await startTestChain();
    token = t.chain.info.contracts.token;
  });
  afterAll(() => t?.close());

  const submit = (
    owner: OperationOwner,
    calls: Parameters<TestChain['chain']['calls']['nativeTransfer']>[],
    salt = 0n,
  ) =>
    t.chain.operations.submitOperation({
      owner,
      salt,
      calls: calls.map(([to, value]) => t.chain.calls.nativeTransfer(to, value)),
    });

  /** A wallet with one operation behind it. */
  async function deployedWallet(owner = randomOwner()): Promise<{ owner: OperationOwner; wallet: Address }> {
    await submit(owner, [[owner.address, 0n]]);
    return { owner, wallet: t.chain.gateway.walletAddress(owner.address, 0n) };
  }

  it('derives the counterfactual wallet by the spec formula, equal to factory getAddress and to what the first operation deploys', async () => {
    const { chain } = t;
    const factory = chain.info.contracts.account_factory;
    for (const salt of [0n, 1234567890123456789n]) {
      const owner = randomOwner();
      const creationCode = await chain.gateway.client.readContract({
        address: factory,
        abi: dauthAccountFactoryAbi,
        functionName: 'accountCreationCode',
        args: [owner.address],
      });
      // keccak256(0xff ++ factory ++ salt ++ keccak256(initCode))[12:]
      const formula = getAddress(
        slice(keccak256(concat(['0xff', factory, toHex(salt, { size: 32 }), keccak256(creationCode)])), 12),
      );
      const onChain = await chain.gateway.read('accountFactory', 'getAddress', [owner.address, salt]);
      expect(onChain).toBe(formula);
      expect(chain.operations.walletAddress(owner.address, salt)).toBe(formula);
      expect(await chain.gateway.isDeployed(formula)).toBe(false);

      await chain.faucet.fund({ address: formula, token: 100n });
      const receiver = randomOwner().address;
      const first = await chain.operations.submitOperation({
        owner,
        salt,
        calls: [chain.calls.erc20Transfer(token, receiver, 7n)],
      });
      expect(first).toMatchObject({ success: true, sender: formula, nonce: 0n });
      expect(await chain.gateway.isDeployed(formula)).toBe(true);
      expect(await chain.gateway.walletOwner(formula)).toBe(owner.address);

      // The first operation carried factory ‖ createAccount(owner, salt); the EntryPoint deployed exactly `formula`.
      const [firstOp] = await bundledOperations(chain, first.txHash).then((ops) =>
        ops.filter((o) => o.sender === formula),
      );
      expect(firstOp!.initCode).toBe(encodeInitCode(factory, owner.address, salt));
      expect(firstOp!.nonce).toBe(0n);
      const receipt = await chain.gateway.client.getTransactionReceipt({ hash: first.txHash });
      const deployed = parseEventLogs({
        abi: entryPointAbi,
        logs: receipt.logs,
        eventName: 'AccountDeployed',
      });
      expect(deployed.map((e) => e.args.sender)).toContain(formula);

      // Later operations carry an empty initCode and the next nonce.
      const second = await chain.operations.submitOperation({
        owner,
        salt,
        calls: [chain.calls.erc20Transfer(token, receiver, 3n)],
      });
      expect(second).toMatchObject({ success: true, nonce: 1n });
      const [secondOp] = await bundledOperations(chain, second.txHash).then((ops) =>
        ops.filter((o) => o.sender === formula),
      );
      expect(secondOp!.initCode).toBe('0x');
      expect(await chain.gateway.tokenBalance(receiver)).toBe(10n);
      expect(await chain.gateway.tokenBalance(formula)).toBe(90n);
    }
  });

  it('encodes one call as execute and several as executeBatch', async () => {
    const { chain } = t;
    const { owner, wallet } = await deployedWallet();
    await chain.faucet.fund({ address: wallet, native: 10n ** 16n, token: 50n });
    const receiver = randomOwner().address;
    const batch = await chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(receiver, 1000n), chain.calls.erc20Transfer(token, receiver, 5n)],
    });
    expect(batch.success).toBe(true);
    const [op] = (await bundledOperations(chain, batch.txHash)).filter((o) => o.sender === wallet);
    expect(slice(op!.callData, 0, 4)).toBe(executeBatchSelector);
    expect(await chain.gateway.nativeBalance(receiver)).toBe(1000n);
    expect(await chain.gateway.tokenBalance(receiver)).toBe(5n);

    const single = await submit(owner, [[receiver, 1n]]);
    const [one] = (await bundledOperations(chain, single.txHash)).filter((o) => o.sender === wallet);
    expect(slice(one!.callData, 0, 4)).toBe(executeSelector);
    // Sponsored: paymaster ‖ validUntil ‖ validAfter ‖ signature, validUntil = validAfter + 300 s.
    expect(getAddress(slice(one!.paymasterAndData, 0, 20))).toBe(chain.info.contracts.paymaster);
    const validUntil = Number(BigInt(slice(one!.paymasterAndData, 20, 52)));
    const validAfter = Number(BigInt(slice(one!.paymasterAndData, 52, 84)));
    // now + 300 s; the window widens only by the skew between the wall clock and the chain's
    // latest block (sponsorshipWindow), a second or two on the embedded chain.
    expect(validUntil - validAfter).toBeGreaterThanOrEqual(300);
    expect(validUntil - validAfter).toBeLessThanOrEqual(302);
    expect(Math.abs(validAfter - Date.now() / 1000)).toBeLessThan(30);
  });

  it('refuses an operation not signed by the wallet owner (AA24) and leaves the wallet untouched', async () => {
    const { chain } = t;
    const { owner, wallet } = await deployedWallet();
    const nonce = await chain.gateway.getNonce(wallet);
    const stranger = randomOwner();

    // A stranger naming the wallet, and a signature by the wrong key under the owner's name: both AA24.
    for (const signer of [stranger, impostor(owner, stranger)]) {
      const attempt = chain.operations.submitOperation({
        owner: signer,
        salt: 0n,
        sender: wallet,
        calls: [chain.calls.nativeTransfer(stranger.address, 0n)],
      });
      await expect(attempt).rejects.toBeInstanceOf(UserOperationRejectedError);
      await expect(attempt).rejects.toMatchObject({
        status: 403,
        code: 'invalid_owner_signature',
        aaCode: 'AA24',
      });
    }
    expect(await chain.gateway.getNonce(wallet)).toBe(nonce);

    // Outside the EntryPoint, only the owner may call the wallet, and only the EntryPoint may validate.
    const client = chain.gateway.client;
    const callFromStranger = client.call({
      account: stranger.address,
      to: wallet,
      data: encodeFunctionData({
        abi: dauthAccountAbi,
        functionName: 'execute',
        args: [stranger.address, 0n, '0x'],
      }),
    });
    await expect(callFromStranger).rejects.toThrow(/reverted/);
    expect(await chain.gateway.walletOwner(wallet)).toBe(owner.address);
  });

  it('refuses an expired and a forged paymaster signature at the EntryPoint (AA32, AA34)', async () => {
    const { chain } = t;
    const contracts = chain.info.contracts;
    const env = {
      CHAIN_RPC_URL: chain.info.rpcUrl!,
      RELAYER_PRIVATE_KEY: ANVIL_DEV_KEYS[1],
      PAYMASTER_SIGNER_PRIVATE_KEY: ANVIL_DEV_KEYS[2],
      OPERATOR_OWNER_PRIVATE_KEY: ANVIL_DEV_KEYS[3],
      ...contractSettings(contracts),
    };
    const now = () => Math.floor(Date.now() / 1000);
    const platformSigner = privateKeyToAccount(ANVIL_DEV_KEYS[2]);
    const cases = [
      {
        // The platform's own signer, but a window that ended a minute ago.
        signer: platformSigner,
        window: async () => ({ validAfter: now() - 360, validUntil: now() - 60 }),
        expected: { code: 'operation_expired', aaCode: 'AA32' },
        relayerKey: generatePrivateKey(),
      },
      {
        // A valid window signed by a key the paymaster does not trust.
        signer: privateKeyToAccount(generatePrivateKey()),
        window: async () => ({ validAfter: now(), validUntil: now() + 300 }),
        expected: { code: 'sponsorship_rejected', aaCode: 'AA34' },
        relayerKey: generatePrivateKey(),
      },
    ];
    for (const c of cases) {
      const other = await startTestChain({
        env,
        relayerKey: c.relayerKey,
        sponsor: ({ paymaster, chainId }) => new PaymasterSponsor(paymaster, chainId, c.signer, c.window),
      });
      try {
        const { owner, wallet } = await deployedWallet();
        const nonce = await chain.gateway.getNonce(wallet);
        const attempt = other.chain.operations.submitOperation({
          owner,
          salt: 0n,
          calls: [chain.calls.nativeTransfer(owner.address, 0n)],
        });
        await expect(attempt).rejects.toBeInstanceOf(UserOperationRejectedError);
        await expect(attempt).rejects.toMatchObject(c.expected);
        expect(await chain.gateway.getNonce(wallet)).toBe(nonce);
      } finally {
        await other.close();
      }
    }
  });

  it('bundles 50 concurrent operations into fewer transactions, each caller with its own result', async () => {
    const { chain } = t;
    const owners = Array.from({ length: 50 }, () => randomOwner());
    const spender = randomOwner().address;
    const results = await Promise.all(
      owners.map((owner, i) =>
        chain.operations.submitOperation({
          owner,
          salt: 0n,
          calls: [chain.calls.platform('token', 'approve', [spender, BigInt(i + 1)])],
        }),
      ),
    );
    expect(results.every((r) => r.success)).toBe(true);
    expect(new Set(results.map((r) => r.userOpHash)).size).toBe(50);
    const transactions = new Set(results.map((r) => r.txHash));
    expect(transactions.size).toBeLessThan(50);
    for (const [i, result] of results.entries()) {
      const wallet = chain.gateway.walletAddress(owners[i]!.address, 0n);
      expect(result.sender).toBe(wallet);
      expect(result.nonce).toBe(0n);
      const allowance = await chain.gateway.client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [wallet, spender],
      });
      expect(allowance).toBe(BigInt(i + 1));
    }
  });

  it('takes a refused operation out of its bundle and sends the others', async () => {
    const { chain } = t;
    const { owner, wallet } = await deployedWallet();
    const stranger = randomOwner();
    const good = Array.from({ length: 9 }, () => randomOwner());
    const settled = await Promise.allSettled([
      ...good.map((o) => submit(o, [[o.address, 0n]])),
      chain.operations.submitOperation({
        owner: impostor(owner, stranger),
        salt: 0n,
        sender: wallet,
        calls: [chain.calls.nativeTransfer(stranger.address, 0n)],
      }),
    ]);
    const refused = settled.pop()!;
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'invalid_owner_signature' } });
    expect(settled.every((s) => s.status === 'fulfilled' && s.value.success)).toBe(true);
  });

  it('gives concurrent operations of one wallet consecutive nonces, deploying with the first only', async () => {
    const { chain } = t;
    const owner = randomOwner();
    const results = await Promise.all([0, 1, 2, 3].map(() => submit(owner, [[owner.address, 0n]])));
    expect(results.map((r) => r.nonce).sort()).toEqual([0n, 1n, 2n, 3n]);
    expect(results.every((r) => r.success)).toBe(true);
    const wallet = chain.gateway.walletAddress(owner.address, 0n);
    const ops = (
      await Promise.all([...new Set(results.map((r) => r.txHash))].map((h) => bundledOperations(chain, h)))
    )
      .flat()
      .filter((o) => o.sender === wallet);
    expect(ops.filter((o) => o.initCode !== '0x').map((o) => o.nonce)).toEqual([0n]);
    expect(await chain.gateway.getNonce(wallet)).toBe(4n);
  });

  it('moves later operations of a wallet down a nonce when an earlier one is refused', async () => {
    const { chain } = t;
    const { owner, wallet } = await deployedWallet();
    const start = await chain.gateway.getNonce(wallet);
    const stranger = randomOwner();
    const settled = await Promise.allSettled([
      submit(owner, [[owner.address, 0n]]),
      chain.operations.submitOperation({
        owner: impostor(owner, stranger),
        salt: 0n,
        calls: [chain.calls.nativeTransfer(owner.address, 0n)],
      }),
      submit(owner, [[owner.address, 0n]]),
      submit(owner, [[owner.address, 0n]]),
    ]);
    expect(settled[1]).toMatchObject({ status: 'rejected', reason: { code: 'invalid_owner_signature' } });
    const nonces = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.nonce] : [])).sort();
    expect(nonces).toEqual([start, start + 1n, start + 2n]);
    expect(await chain.gateway.getNonce(wallet)).toBe(start + 3n);
  });

  it('reports a reverting call before sending it, and as success=false once mined', async () => {
    const { chain } = t;
    const { owner, wallet } = await deployedWallet();
    await chain.faucet.fund({ address: wallet, token: 10n });
    const nonce = await chain.gateway.getNonce(wallet);
    const tooMuch = [chain.calls.erc20Transfer(token, owner.address, 11n)];

    const estimated = chain.operations.submitOperation({ owner, salt: 0n, calls: tooMuch });
    await expect(estimated).rejects.toBeInstanceOf(OperationReverted);
    await expect(estimated).rejects.toMatchObject({
      status: 422,
      code: 'operation_reverted',
      details: { revert_reason: 'ERC20: transfer amount exceeds balance' },
      revert: { name: 'Error', args: ['ERC20: transfer amount exceeds balance'] },
    });
    expect(await chain.gateway.getNonce(wallet)).toBe(nonce);

    // With a fixed callGasLimit nothing is estimated: the operation is mined, its call reverts.
    const mined = await chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: tooMuch,
      callGasLimit: 200_000n,
    });
    expect(mined).toMatchObject({
      success: false,
      revert: {
        name: 'Error',
        args: ['ERC20: transfer amount exceeds balance'],
        message: 'ERC20: transfer amount exceeds balance',
      },
    });
    expect(await chain.gateway.getNonce(wallet)).toBe(nonce + 1n);
    expect(await chain.gateway.tokenBalance(wallet)).toBe(10n);
  });

  it('writes to the dex through the operator wallet only', async () => {
    const { chain } = t;
    const operator = chain.operator.address;
    expect(await chain.gateway.read('dex', 'operator', [])).toBe(operator);
    expect(await chain.gateway.read('contentToken', 'operator', [])).toBe(operator);

    const buyer = chain.gateway.walletAddress(randomOwner().address, 0n);
    const seller = chain.gateway.walletAddress(randomOwner().address, 0n);
    const content = chain.gateway.walletAddress(randomOwner().address, 42n);
    const slot = 4_200_000_000_000_000_001n;
    const bought = await chain.operator.execute([
      chain.calls.platform('dex', 'buy_slot', [seller, slot, content]),
    ]);
    expect(bought.success).toBe(true);
    expect(await chain.gateway.slotOwner(slot)).toBe(seller);
    const moved = await chain.operator.execute([
      chain.calls.platform('dex', 'init_self', [seller, slot, buyer]),
    ]);
    expect(moved.success).toBe(true);
    expect(await chain.gateway.slotOwner(slot)).toBe(buyer);

    // A user's wallet is not the operator: the dex refuses, before anything is sent.
    const { owner } = await deployedWallet();
    const attempt = chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.platform('dex', 'init_self', [buyer, slot, seller])],
    });
    await expect(attempt).rejects.toMatchObject({ code: 'operation_reverted' });
    await expect(attempt).rejects.toThrow(/NotOperator/);
  });

  it('carries the dex refusal typed (name and arguments) up to the slots port, which names it 409', async () => {
    const { chain } = t;
    const dex = new DexLedger(chain.gateway, chain.calls, chain.operator);
    const owner = chain.gateway.walletAddress(randomOwner().address, 0n);
    const other = chain.gateway.walletAddress(randomOwner().address, 0n);
    const content = chain.gateway.walletAddress(randomOwner().address, 7n);
    const slot = 4_200_000_000_000_000_077n;
    await dex.buySlot(owner, slot, content);

    // Bought again: the estimate sees SlotExists(slot) and nothing is sent.
    const again = dex.buySlot(other, slot, content);
    await expect(again).rejects.toBeInstanceOf(OperationReverted);
    await expect(again).rejects.toMatchObject({
      status: 422,
      code: 'operation_reverted',
      revert: { name: 'SlotExists', args: [slot] },
    });
    // Moved from a wallet that does not own it: NotSlotOwner with the claimed and the actual owner.
    await expect(dex.moveSlot(other, slot, owner)).rejects.toMatchObject({
      revert: { name: 'NotSlotOwner', args: [slot, other, owner] },
    });

    // The slots port turns the same refusals into the slot errors, by name.
    const ledger = slotLedgerOver(dex);
    await expect(ledger.buySlot(other, slot, content)).rejects.toMatchObject({
      status: 409,
      code: 'slot_exists',
    });
    await expect(ledger.moveSlot(other, slot, owner)).rejects.toMatchObject({
      status: 409,
      code: 'slot_owner_mismatch',
    });
    await expect(ledger.moveSlot(owner, slot, owner)).rejects.toMatchObject({
      status: 409,
      code: 'same_owner',
    });
    expect(await dex.ownerOf(slot)).toBe(owner);
  });

  it('rotates the owner with changeOwner call data; the address stays and only the new owner signs', async () => {
    const { chain } = t;
    const { owner, wallet } = await deployedWallet();
    const next = randomOwner();
    const rotated = await chain.operations.submitOperation({
      owner,
      salt: 0n,
      callData: chain.calls.changeOwnerCallData(next.address),
    });
    expect(rotated.success).toBe(true);
    const [op] = (await bundledOperations(chain, rotated.txHash)).filter((o) => o.sender === wallet);
    expect(decodeFunctionData({ abi: dauthAccountAbi, data: op!.callData }).functionName).toBe('changeOwner');
    expect(await chain.gateway.walletOwner(wallet)).toBe(next.address);

    const byNew = await chain.operations.submitOperation({
      owner: next,
      salt: 0n,
      sender: wallet,
      calls: [chain.calls.nativeTransfer(next.address, 0n)],
    });
    expect(byNew).toMatchObject({ success: true, sender: wallet });
    await expect(
      chain.operations.submitOperation({
        owner,
        salt: 0n,
        sender: wallet,
        calls: [chain.calls.nativeTransfer(owner.address, 0n)],
      }),
    ).rejects.toMatchObject({ code: 'invalid_owner_signature' });
    // Without `sender`, a rotated owner would name a different (undeployed) wallet: refused, not guessed.
    await expect(
      chain.operations.submitOperation({
        owner: next,
        salt: 0n,
        sender: chain.gateway.walletAddress(randomOwner().address, 0n),
        calls: [chain.calls.nativeTransfer(next.address, 0n)],
      }),
    ).rejects.toMatchObject({ status: 409, code: 'wallet_owner_mismatch' });
  });

  it('sends a dropped bundle transaction again, and re-bundles when its nonce went elsewhere', async () => {
    const { chain } = t;
    const client = chain.gateway.client;
    const rpc = (method: string, params: unknown[] = []) =>
      client.request({ method, params } as never) as Promise<unknown>;
    const pendingCount = async () => Number(((await rpc('txpool_status')) as { pending: string }).pending);
    const untilPending = async () => {
      for (let i = 0; i < 200 && (await pendingCount()) === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(await pendingCount()).toBe(1);
    };

    // 1. The node loses the pending bundle (as after a restart from an older state): it is sent again.
    const { owner } = await deployedWallet();
    await rpc('evm_setAutomine', [false]);
    let first;
    try {
      first = submit(owner, [[owner.address, 0n]]);
      await untilPending();
      await rpc('anvil_dropAllTransactions');
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(await first).toMatchObject({ success: true });

    // 2. Another sender used the relayer's nonce meanwhile: the bundle is simulated and sent again.
    const relayer = privateKeyToAccount(ANVIL_DEV_KEYS[1]);
    await rpc('evm_setAutomine', [false]);
    let second;
    try {
      second = submit(owner, [[owner.address, 0n]]);
      await untilPending();
      await rpc('anvil_dropAllTransactions');
      const nonce = await client.getTransactionCount({ address: relayer.address, blockTag: 'pending' });
      const fees = await chain.gateway.fees();
      const raw = await relayer.signTransaction({
        chainId: 31337,
        type: 'eip1559',
        to: relayer.address,
        value: 0n,
        gas: 21_000n,
        nonce,
        ...fees,
      });
      await client.sendRawTransaction({ serializedTransaction: raw });
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(await second).toMatchObject({ success: true });
  });

  it('never runs an operation twice when the relayer loses track of the transaction that carried it', async () => {
    const { chain } = t;
    const { owner, wallet } = await deployedWallet();
    await chain.faucet.fund({ address: wallet, token: 10n });
    const receiver = randomOwner().address;
    // Fault injection: the bundle is really mined, but the submitter reports it dropped (as when a
    // replacement and the original both landed after a chain rewind and the wrong receipt was read).
    const submitter = (chain.operations as unknown as { bundler: { submitter: { submit: SubmitFn } } })
      .bundler.submitter;
    type SubmitFn = (request: unknown) => Promise<{ kind: string; receipt?: { transactionHash: string } }>;
    const original = submitter.submit.bind(submitter);
    let minedTx: string | undefined;
    submitter.submit = async (request) => {
      submitter.submit = original;
      const outcome = await original(request);
      minedTx = outcome.receipt?.transactionHash;
      return { kind: 'dropped' };
    };
    const result = await chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.erc20Transfer(token, receiver, 3n)],
    });
    expect(minedTx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(result).toMatchObject({ success: true, txHash: minedTx });
    expect(await chain.gateway.tokenBalance(receiver)).toBe(3n);
    expect(await chain.gateway.tokenBalance(wallet)).toBe(7n);
  });

  it('fails a withdrawn operation that was sent as "outcome unknown", never as "not sent"', async () => {
    const { chain } = t;
    const { owner, wallet } = await deployedWallet();
    await chain.faucet.fund({ address: wallet, token: 10n });
    const receiver = randomOwner().address;
    type SubmitFn = (request: unknown) => Promise<{ kind: string }>;
    const bundler = (chain.operations as unknown as { bundler: { submitter: { submit: SubmitFn } } }).bundler;
    const original = bundler.submitter.submit.bind(bundler.submitter);
    // The bundle is mined but reported dropped, and the node fails the very next look-up.
    bundler.submitter.submit = async (request) => {
      bundler.submitter.submit = original;
      await original(request);
      return { kind: 'dropped' };
    };
    const gateway = chain.gateway as unknown as {
      receiptsOfOperations: (...a: unknown[]) => Promise<unknown>;
    };
    const lookup = gateway.receiptsOfOperations.bind(chain.gateway);
    gateway.receiptsOfOperations = async () => {
      gateway.receiptsOfOperations = lookup;
      throw new AppError(503, 'chain_unavailable', 'node down (injected)');
    };
    const error = await chain.operations
      .submitOperation({ owner, salt: 0n, calls: [chain.calls.erc20Transfer(token, receiver, 3n)] })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).name).toBe('OperationOutcomeUnknownError');
    expect((error as AppError).details?.user_op_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // It did run, exactly once: a caller that resent it on a "not sent" error would pay twice.
    expect(await chain.gateway.tokenBalance(receiver)).toBe(3n);
  });

  it('keeps AppError as the only error type callers see', () => {
    expect(new UserOperationRejectedError('AA31 paymaster deposit too low')).toBeInstanceOf(AppError);
    expect(new UserOperationRejectedError('AA31 paymaster deposit too low')).toMatchObject({
      status: 503,
      code: 'sponsorship_unavailable',
    });
  });
});
