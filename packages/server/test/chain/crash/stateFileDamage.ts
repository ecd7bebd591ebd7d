import fs from 'node:fs';
import type { Hash } from '../../../src/chain/types.js';

/** The fields of anvil's state dump the damage below touches. */
export interface Dump {
  block: { number: string };
  best_block_number: number;
  blocks: { header: { number: string } }[];
  transactions: { block_number: number }[];
}

export const readDump = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Dump;

/** The dump as a kill can leave it: every block from `tx`'s on is missing, with their transactions; their effects are not. */
export function withoutBlocksFrom(dump: Dump, tx: Hash): Dump {
  const lostBlock = dump.transactions.find(
    (t) => (t as unknown as { info: { transaction_hash: string } }).info.transaction_hash === tx,
  )!.block_number;
  dump.blocks = dump.blocks.filter((b) => Number(b.header.number) < lostBlock);
  dump.transactions = dump.transactions.filter((t) => t.block_number < lostBlock);
  dump.best_block_number = lostBlock - 1;
  dump.block.number = `0x${(lostBlock - 1).toString(16)}`;
  return dump;
}

/** The dump anvil was rewriting in place when a kill came: its first half. */
export function cutShort(file: string): void {
  const whole = fs.readFileSync(file);
  fs.writeFileSync(file, whole.subarray(0, whole.length >> 1));
}
