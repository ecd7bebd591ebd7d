/**
 * Where the gas of one `handleOps` transaction goes, from anvil's `debug_traceTransaction` (struct logger).
 * Used by `npm run bench:gas -- --profile`, which prints the breakdown of the first and the later operation
 * of both stacks (docs/contracts.md, "Gas", keeps the resulting table).
 *
 * Every step's own cost is the drop of the gas counter to the next step of the same frame; a step that opens a
 * frame (CALL, STATICCALL, DELEGATECALL, CREATE2) is charged its overhead only (access, value transfer, memory,
 * CREATE2's 32,000 and the code deposit), the frame's own steps are charged to that frame. Costs are grouped
 * by frame (the chain of labelled addresses) and by kind of opcode; calldata is split by user operation field.
 * `GAS_PROFILE_OPS=<end of a frame label>` (e.g. `"CALL DauthPaymaster"`) also prints that frame's steps: pc,
 * opcode, gas and the top two stack words (a storage key and value, a call's gas and target).
 */
import { decodeFunctionData, getAddress, hexToBytes, size, type Hex, type PublicClient } from 'viem';
import { entryPointAbi } from '../src/index.js';

type StructLog = { pc: number; op: string; gas: number; gasCost: number; depth: number; stack?: string[] };

export type GasProfile = {
  gasUsed: number;
  intrinsic: { base: number; calldata: Record<string, number> };
  /** Refund subtracted at the end of the transaction (EIP-3529); zero unless a slot returned to its value. */
  refund: number;
  /** frame label → kind → gas. */
  frames: Map<string, Map<string, number>>;
};

const CALLS = new Set(['CALL', 'STATICCALL', 'DELEGATECALL', 'CALLCODE', 'CREATE', 'CREATE2']);

/** Gas of calldata bytes: 4 per zero byte, 16 per other byte. */
function calldataGas(bytes: Uint8Array): number {
  let gas = 0;
  for (const byte of bytes) gas += byte === 0 ? 4 : 16;
  return gas;
}

/** One dynamic `bytes` field as ABI-encoded: the length word and the content padded to 32 bytes. */
function encodedFieldGas(field: Hex): number {
  const length = size(field);
  const padding = (32 - (length % 32)) % 32;
  return (
    calldataGas(hexToBytes(field)) +
    4 * padding +
    calldataGas(hexToBytes(`0x${length.toString(16).padStart(64, '0')}`))
  );
}

function kindOf(log: StructLog, target: string | undefined): string {
  if (log.op === 'SSTORE' || log.op === 'SLOAD') return log.op;
  if (log.op.startsWith('LOG')) return 'LOG (events)';
  if (log.op === 'KECCAK256') return 'KECCAK256';
  if (log.op === 'CREATE2' || log.op === 'CREATE') return 'CREATE2 + code deposit';
  if (CALLS.has(log.op))
    return target === '0x0000000000000000000000000000000000000001'
      ? 'ecrecover'
      : `${log.op} (access, value)`;
  if (log.op.startsWith('EXTCODE') || log.op === 'BALANCE') return log.op;
  return 'other opcodes + memory';
}

export async function profileHandleOps(
  client: PublicClient,
  hash: Hex,
  names: ReadonlyMap<string, string>,
): Promise<GasProfile> {
  const [transaction, receipt] = await Promise.all([
    client.getTransaction({ hash }),
    client.getTransactionReceipt({ hash }),
  ]);
  const trace = (await client.request({
    method: 'debug_traceTransaction' as never,
    params: [hash, { disableStorage: true, enableMemory: false, disableStack: false }] as never,
  })) as { structLogs: StructLog[] };
  const logs = trace.structLogs;

  // Calldata by field of the (single) operation; what is left is the selector, heads, words and offsets.
  const input = transaction.input;
  const total = calldataGas(hexToBytes(input));
  const { args } = decodeFunctionData({ abi: entryPointAbi, data: input });
  const ops = (
    args as unknown as [{ initCode: Hex; callData: Hex; paymasterAndData: Hex; signature: Hex }[]]
  )[0];
  const calldata: Record<string, number> = { initCode: 0, callData: 0, paymasterAndData: 0, signature: 0 };
  for (const op of ops) {
    calldata.initCode! += encodedFieldGas(op.initCode);
    calldata.callData! += encodedFieldGas(op.callData);
    calldata.paymasterAndData! += encodedFieldGas(op.paymasterAndData);
    calldata.signature! += encodedFieldGas(op.signature);
  }
  calldata['heads, gas fields, offsets'] = total - Object.values(calldata).reduce((a, b) => a + b, 0);

  const name = (word: string | undefined) => {
    if (!word) return '?';
    const address = getAddress(`0x${BigInt(word).toString(16).padStart(40, '0').slice(-40)}`);
    return names.get(address) ?? address;
  };
  const frames = new Map<string, Map<string, number>>();
  const charge = (frame: string, kind: string, gas: number) => {
    const kinds = frames.get(frame) ?? new Map<string, number>();
    kinds.set(kind, (kinds.get(kind) ?? 0) + gas);
    frames.set(frame, kinds);
  };

  /** Charges the frame starting at `start` (depth `depth`) and returns [index after it, gas it used]. */
  function walk(start: number, depth: number, label: string): [number, number] {
    let used = 0;
    let i = start;
    while (i < logs.length && logs[i]!.depth === depth) {
      const log = logs[i]!;
      const next = logs[i + 1];
      const stack = log.stack ?? [];
      const target = CALLS.has(log.op) && !log.op.startsWith('CREATE') ? stack[stack.length - 2] : undefined;
      const targetAddress = target ? `0x${BigInt(target).toString(16).padStart(40, '0')}` : undefined;
      if (next && next.depth > depth) {
        const child = log.op.startsWith('CREATE') ? 'CREATE2' : `${log.op} ${name(target)}`;
        const [after, childUsed] = walk(i + 1, next.depth, `${label} › ${child}`);
        // A CALL with value hands the callee a 2,300 stipend the caller does not pay.
        const stipend =
          log.op === 'CALL' && stack.length >= 3 && BigInt(stack[stack.length - 3]!) !== 0n ? 2300 : 0;
        const resume = logs[after];
        const own = resume ? log.gas - resume.gas - childUsed + stipend : log.gasCost;
        charge(label, kindOf(log, targetAddress), own);
        used += own + childUsed - stipend;
        i = after;
      } else {
        const own = next && next.depth === depth ? log.gas - next.gas : log.gasCost;
        charge(label, kindOf(log, targetAddress), own);
        if (process.env.GAS_PROFILE_OPS && label.endsWith(process.env.GAS_PROFILE_OPS))
          console.log(`${log.pc}\t${log.op}\t${own}\t${stack.slice(-2).reverse().join(' ')}`);
        used += own;
        i += 1;
      }
    }
    return [i, used];
  }
  const [, execution] = walk(0, logs[0]!.depth, 'EntryPoint');
  const intrinsic = 21_000 + total;
  return {
    gasUsed: Number(receipt.gasUsed),
    intrinsic: { base: 21_000, calldata },
    refund: intrinsic + execution - Number(receipt.gasUsed),
    frames,
  };
}

/** Plain-text table of a profile: calldata by field, then every frame's costs by kind. */
export function formatProfile(title: string, profile: GasProfile): string {
  const gas = (value: number) => value.toLocaleString('en-US').padStart(8);
  const lines = [`== ${title}: gasUsed ${profile.gasUsed.toLocaleString('en-US')}`, `${gas(21_000)}  base`];
  for (const [field, value] of Object.entries(profile.intrinsic.calldata))
    lines.push(`${gas(value)}  calldata: ${field}`);
  for (const [frame, kinds] of profile.frames) {
    const sum = [...kinds.values()].reduce((a, b) => a + b, 0);
    lines.push(`${gas(sum)}  ${frame}`);
    for (const [kind, value] of [...kinds].sort((a, b) => b[1] - a[1]))
      lines.push(`${' '.repeat(10)}${gas(value)}  ${kind}`);
  }
  if (profile.refund !== 0) lines.push(`${gas(-profile.refund)}  refund`);
  return lines.join('\n');
}
