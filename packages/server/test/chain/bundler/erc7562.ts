import { entryPointAbi, type UserOperation } from '@dauth/contracts';
import { encodeFunctionData, type Hex, type PublicClient } from 'viem';

/** The SenderCreator the canonical EntryPoint v0.6 deploys in its constructor: the factory's caller. */
const SENDER_CREATOR = '0x7fc98430eaedbb6070b35b39d798725049088348';

/** ERC-7562 OP-011: opcodes no validation frame may execute (GAS only right before a call, OP-012). */
const BANNED = new Set([
  'GASPRICE',
  'GASLIMIT',
  'DIFFICULTY',
  'PREVRANDAO',
  'TIMESTAMP',
  'BASEFEE',
  'BLOCKHASH',
  'NUMBER',
  'SELFBALANCE',
  'BALANCE',
  'ORIGIN',
  'CREATE',
  'COINBASE',
  'SELFDESTRUCT',
  'BLOBHASH',
  'BLOBBASEFEE',
  'INVALID',
]);
const CALLS = new Set(['CALL', 'STATICCALL', 'DELEGATECALL', 'CALLCODE']);
const CREATES = new Set(['CREATE', 'CREATE2']);

export type Entity = 'factory' | 'account' | 'paymaster';

export interface StorageAccess {
  entity: Entity;
  /** The contract whose storage it is (lower case). */
  address: string;
  slot: Hex;
  op: 'SLOAD' | 'SSTORE';
}

export interface ValidationTrace {
  /** Banned opcodes executed, per entity (`NUMBER` of the EntryPoint itself is not counted). */
  banned: { entity: Entity; op: string }[];
  storage: StorageAccess[];
  /** CREATE2 executed per entity (OP-031: the factory once). */
  create2: Record<Entity, number>;
  /** EXTCODE* / calls to addresses, per entity, to check they have code (OP-041). */
  touched: { entity: Entity; op: string; address: string }[];
}

/** A stack word as an address (its low 160 bits: the compiler masks the rest later). */
const asAddress = (word: string): string =>
  `0x${(BigInt(word) & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;

interface StructLog {
  op: string;
  depth: number;
  stack?: string[];
}

/**
 * What the validation of `op` does, by ERC-7562's categories, from anvil's struct-log trace of the
 * EntryPoint's `simulateValidation` (the opcode/storage part of what a safe-mode bundler traces with its own
 * JavaScript tracer, which anvil cannot run as geth does; docs/operations.md, "Which bundler").
 */
export async function traceValidation(
  client: PublicClient,
  entryPoint: Hex,
  op: UserOperation,
): Promise<ValidationTrace> {
  const data = encodeFunctionData({ abi: entryPointAbi, functionName: 'simulateValidation', args: [op] });
  const result = (await client.request({
    method: 'debug_traceCall' as never,
    params: [
      { from: '0x0000000000000000000000000000000000000000', to: entryPoint, data },
      'latest',
      { enableMemory: false, disableStorage: true },
    ] as never,
  })) as { structLogs: StructLog[] };
  const logs = result.structLogs;
  const sender = op.sender.toLowerCase();
  const paymaster = op.paymasterAndData.length >= 42 ? op.paymasterAndData.slice(0, 42).toLowerCase() : '';
  const trace: ValidationTrace = {
    banned: [],
    storage: [],
    create2: { factory: 0, account: 0, paymaster: 0 },
    touched: [],
  };
  // frames[d] = the storage address of the frame at depth d (DELEGATECALL keeps the caller's).
  const frames: string[] = ['', entryPoint.toLowerCase()];
  let entity: Entity | undefined;
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i]!;
    const next = logs[i + 1];
    const stack = log.stack ?? [];
    const top = (n: number) => stack[stack.length - 1 - n] ?? '0x0';
    frames.length = log.depth + 1;
    if (log.depth === 1) {
      entity = undefined;
    }
    if (next && next.depth === log.depth + 1) {
      // Entering a frame: which contract's storage it works on.
      let address: string;
      if (CALLS.has(log.op)) {
        const target = asAddress(top(1));
        address = log.op === 'DELEGATECALL' || log.op === 'CALLCODE' ? frames[log.depth]! : target;
        if (log.depth === 1) {
          entity =
            target === SENDER_CREATOR
              ? 'factory'
              : target === sender
                ? 'account'
                : target === paymaster
                  ? 'paymaster'
                  : undefined;
        }
      } else {
        address = CREATES.has(log.op) ? sender : frames[log.depth]!;
      }
      frames[log.depth + 1] = address;
    }
    if (!entity || log.depth < 2) continue;
    if (BANNED.has(log.op)) trace.banned.push({ entity, op: log.op });
    if (log.op === 'GAS' && !(next && CALLS.has(next.op))) trace.banned.push({ entity, op: 'GAS' });
    if (log.op === 'CREATE2') trace.create2[entity] += 1;
    if (log.op === 'SLOAD' || log.op === 'SSTORE') {
      trace.storage.push({
        entity,
        address: frames[log.depth]!,
        slot: `0x${BigInt(top(0)).toString(16)}` as Hex,
        op: log.op,
      });
    }
    if (/^EXTCODE/.test(log.op) || CALLS.has(log.op)) {
      trace.touched.push({
        entity,
        op: log.op,
        address: asAddress(top(log.op.startsWith('EXTCODE') ? 0 : 1)),
      });
    }
  }
  return trace;
}
