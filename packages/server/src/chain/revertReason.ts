import {
  dauthAccountAbi,
  dauthAccountFactoryAbi,
  dauthContentTokenAbi,
  dauthDexAbi,
  dauthPaymasterAbi,
  dauthTokenAbi,
  entryPointAbi,
} from '@dauth/contracts';
import { type Abi, decodeErrorResult, size, slice } from 'viem';
import type { Revert } from '../errors.js';
import type { Hex } from './types.js';

/** Every custom error the platform's contracts can raise, so a revert decodes to a name and arguments. */
const knownErrorsAbi: Abi = dedupeErrors([
  ...entryPointAbi,
  ...dauthAccountAbi,
  ...dauthAccountFactoryAbi,
  ...dauthPaymasterAbi,
  ...dauthDexAbi,
  ...dauthContentTokenAbi,
  ...dauthTokenAbi,
] as Abi);

type AbiError = Extract<Abi[number], { type: 'error' }>;

function dedupeErrors(abi: Abi): AbiError[] {
  const seen = new Map<string, AbiError>();
  for (const item of abi) {
    if (item.type !== 'error') continue;
    const signature = `${item.name}(${item.inputs.map((i) => i.type).join(',')})`;
    if (!seen.has(signature)) seen.set(signature, item);
  }
  return [...seen.values()];
}

/** A revert's name, arguments and readable message (`Revert`), with the raw data it came from. */
export interface DecodedRevert extends Revert {
  raw: Hex;
}

/** Decodes revert data (a call's or `UserOperationRevertReason.revertReason`) into something a person can read. */
export function decodeRevertReason(data: Hex | undefined): DecodedRevert {
  const raw = (data ?? '0x') as Hex;
  if (size(raw) === 0) return { name: undefined, args: [], message: 'reverted without a reason', raw };
  if (size(raw) < 4) return { name: undefined, args: [], message: `reverted with data ${raw}`, raw };
  try {
    const decoded = decodeErrorResult({ abi: knownErrorsAbi, data: raw });
    const args = (decoded.args ?? []) as readonly unknown[];
    if (decoded.errorName === 'Error') return { name: 'Error', args, message: String(args[0]), raw };
    if (decoded.errorName === 'Panic') {
      return { name: 'Panic', args, message: `panic 0x${(args[0] as bigint).toString(16)}`, raw };
    }
    return {
      name: decoded.errorName,
      args,
      message: `${decoded.errorName}(${args.map(formatArg).join(', ')})`,
      raw,
    };
  } catch {
    return { name: undefined, args: [], message: `custom error ${slice(raw, 0, 4)}`, raw };
  }
}

function formatArg(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map(formatArg).join(', ')}]`;
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
