import fs from 'node:fs';
import path from 'node:path';
import { copyFileDurably } from './durableFile.js';

/**
 * anvil rewrites its state file in place (open with O_TRUNC, then write, seen with strace): a kill during
 * one of its dumps every few seconds leaves half a file, which anvil refuses to load. The service keeps
 * its own copy of the newest complete dump it read, written atomically, and compacts the chain journal
 * only up to that copy's head (`JournalMaintenance`), so a start from the copy plus the journal's replay
 * is always the whole chain.
 *
 * A dump holds the last 2,000 blocks' transactions with their call traces: 100 MB after 45,000 content
 * records, up to several hundred MB. It is never read into a string (a JSON.parse of 100 MB held the event
 * loop for a second and V8 cannot hold a string over 512 MB): the kernel copies it, and two small reads
 * tell whether a file is whole and which head it holds (docs/chain.md, "A dump cut short").
 */
export function lastGoodDumpPath(statePath: string): string {
  return path.join(path.dirname(statePath), 'state.last-good.json');
}

/**
 * How every whole dump of anvil 1.x ends: `historical_states` is the last field of its `SerializableState`
 * (null: the service does not preserve them). anvil writes the file front to back, so a file cut short is a
 * prefix of a whole dump and ends with these bytes only when nothing is missing. A test pins it against the
 * anvil this build runs (test/chain/crash/dumpCutShort.test.ts).
 */
const WHOLE_DUMP_END = Buffer.from(',"historical_states":null}');
/** The head's field: it follows the block environment and the accounts, before blocks and transactions. */
const HEAD_FIELD = Buffer.from(',"best_block_number":');
const SCAN_CHUNK_BYTES = 1 << 20;
/** More digits than any block number has: not a dump's head. */
const MAX_HEAD_DIGITS = 20;

/** Whether the file at `file` is a whole dump (its last bytes only). */
export function isWholeDump(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const { size } = fs.fstatSync(fd);
    const tail = Buffer.alloc(Math.min(size, WHOLE_DUMP_END.length + 16));
    fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    return trimEnd(tail).subarray(-WHOLE_DUMP_END.length).equals(WHOLE_DUMP_END);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The `best_block_number` a dump file holds, read from its front in chunks (the event loop is never held),
 * or undefined when the file does not reach that field yet (being written) or does not exist. It says
 * nothing of whether the rest of the file is there: `isWholeDump`.
 */
export async function readDumpHead(file: string): Promise<bigint | undefined> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch {
    return undefined;
  }
  return scanFront(handle, HEAD_FIELD.length + MAX_HEAD_DIGITS + 1, (buffer, filled) => {
    const at = buffer.subarray(0, filled).indexOf(HEAD_FIELD);
    // A field cut by the read is read again, whole, after the carry.
    if (at < 0) return { carryFrom: filled - Math.min(filled, HEAD_FIELD.length - 1) };
    const start = at + HEAD_FIELD.length;
    let end = start;
    while (end < filled && end - start <= MAX_HEAD_DIGITS && isDigit(buffer[end]!)) end++;
    if (end - start > MAX_HEAD_DIGITS) return { done: undefined };
    if (end < filled)
      return { done: end > start ? BigInt(buffer.toString('latin1', start, end)) : undefined };
    // The number may run past this read: read on, keeping the field.
    return { carryFrom: at };
  });
}

/** What a `scanFront` step decides: its answer, or which bytes of this read the next read starts with. */
type ScanStep<T> = { done: T } | { carryFrom: number };

/**
 * Reads an open dump from its front, a chunk at a time after the bytes the previous step carried over, and
 * hands each read to `step` (the buffer and how much of it is filled) until it is done; undefined at the end
 * of the file. `carryRoom` is the most a step carries. Closes the handle.
 */
async function scanFront<T>(
  handle: fs.promises.FileHandle,
  carryRoom: number,
  step: (buffer: Buffer, filled: number) => ScanStep<T>,
): Promise<T | undefined> {
  try {
    const buffer = Buffer.alloc(SCAN_CHUNK_BYTES + carryRoom);
    let carried = 0;
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, carried, SCAN_CHUNK_BYTES, position);
      if (bytesRead === 0) return undefined;
      position += bytesRead;
      const filled = carried + bytesRead;
      const next = step(buffer, filled);
      if ('done' in next) return next.done;
      buffer.copy(buffer, 0, next.carryFrom, filled);
      carried = filled - next.carryFrom;
    }
  } finally {
    await handle.close();
  }
}

/**
 * Keeps the state file as the last good copy when it is a whole dump: the kernel copies it, the copy (which
 * nothing else writes) is checked whole, and only then fsynced and renamed into place. A dump anvil rewrote
 * while it was copied (its size or modification time moved) is not kept. Returns the copy's head, or
 * undefined when nothing was kept (try again after anvil's next dump).
 */
export async function keepLastGoodDump(
  statePath: string,
  /**
   * Whether the copy's state is its head block's (JournalMaintenance: `senderAheadOfHead`); false or a throw:
   * not kept. anvil's
   * periodic dump does not wait for its miner either, so a whole file can still hold a block's effects without
   * the block (docs/chain.md, "The embedded chain"); kept, it was the start's fallback and its head the
   * journal's compaction point, with that block's transactions compacted away for good.
   */
  consistent?: (copy: string, head: bigint) => Promise<boolean>,
): Promise<bigint | undefined> {
  const before = await settledStat(statePath);
  if (before === undefined) return undefined;
  return copyFileDurably(statePath, lastGoodDumpPath(statePath), async (copy) => {
    const after = await fs.promises.stat(statePath, { bigint: true });
    if (after.mtimeNs !== before.mtimeNs || after.size !== before.size) return undefined;
    const head = isWholeDump(copy) ? await readDumpHead(copy) : undefined;
    if (head === undefined || (consistent && !(await consistent(copy, head)))) return undefined;
    return head;
  });
}

/**
 * An account as a dump writes it: `"<address>":{"nonce":<n>,"balance":"0x…","code":"0x…","storage":{…}}`, accounts
 * first (pinned against the anvil this build runs by test/chain/crash/halfWrittenBlock.test.ts). The scan looks
 * for the bytes between address and nonce with `Buffer.indexOf` (a storage slot never has them) and reads the
 * few bytes around each hit: ≈ 2 ms a megabyte of accounts where a regular expression over the text took 25
 * (docs/chain.md, "The embedded chain").
 */
const ACCOUNT_NONCE = Buffer.from('":{"nonce":');
const BALANCE_FIELD = Buffer.from(',"balance":"0x');
const CODE_FIELD = Buffer.from('","code":"0x');
const DELEGATION = Buffer.from('ef0100');
/** `"0x` and 40 hex digits before `ACCOUNT_NONCE`. */
const ADDRESS_CHARS = 42;
const QUOTE = 0x22;
const ZERO = 0x30;
const LOWER_X = 0x78;
/** Longer than any account's head up to its code's first bytes (address, nonce, 32-byte balance, delegation). */
const ACCOUNT_HEAD_BYTES = 256;

/**
 * The nonce of every account of the dump at `file` that has sent a transaction (a sender: no code or an
 * EIP-7702 delegation, nonce above zero), read from the front to the head field (accounts only; never the whole
 * file in memory). Undefined when the head field is not found. Every transaction raises its sender's nonce, so
 * a dump holding a block's effects beyond its head has a sender whose nonce is ahead of the chain's at that head.
 */
export async function readDumpSenders(file: string): Promise<Map<string, bigint> | undefined> {
  const senders = new Map<string, bigint>();
  return scanFront(await fs.promises.open(file, 'r'), 2 * ACCOUNT_HEAD_BYTES, (buffer, filled) => {
    const headAt = buffer.subarray(0, filled).indexOf(HEAD_FIELD);
    const end = headAt >= 0 ? headAt : filled;
    for (
      let at = buffer.indexOf(ACCOUNT_NONCE);
      at >= 0 && at < end;
      at = buffer.indexOf(ACCOUNT_NONCE, at + ACCOUNT_NONCE.length)
    ) {
      // An account whose head runs past this read is read again, whole, after the carry.
      if (headAt < 0 && at + ACCOUNT_HEAD_BYTES > filled)
        return { carryFrom: Math.max(0, at - ADDRESS_CHARS - 1) };
      const sender = senderAt(buffer, at, end);
      if (sender) senders.set(sender.address, sender.nonce);
    }
    if (headAt >= 0) return { done: senders };
    // A marker (or the head field) the read cut, with its address, starts the next read.
    return { carryFrom: Math.max(0, filled - (ADDRESS_CHARS + ACCOUNT_NONCE.length)) };
  });
}

/** The sender whose `ACCOUNT_NONCE` is at `at`, or undefined for an account with code or nonce 0. */
function senderAt(buffer: Buffer, at: number, end: number): { address: string; nonce: bigint } | undefined {
  const addressAt = at - ADDRESS_CHARS;
  if (addressAt < 1 || buffer[addressAt - 1] !== QUOTE) return undefined;
  if (buffer[addressAt] !== ZERO || buffer[addressAt + 1] !== LOWER_X) return undefined;
  const nonceAt = at + ACCOUNT_NONCE.length;
  let nonceEnd = nonceAt;
  while (nonceEnd < end && isDigit(buffer[nonceEnd]!)) nonceEnd++;
  if (
    nonceEnd === nonceAt ||
    !buffer.subarray(nonceEnd, nonceEnd + BALANCE_FIELD.length).equals(BALANCE_FIELD)
  )
    return undefined;
  let codeAt = nonceEnd + BALANCE_FIELD.length;
  while (codeAt < end && buffer[codeAt] !== QUOTE) codeAt++;
  if (!buffer.subarray(codeAt, codeAt + CODE_FIELD.length).equals(CODE_FIELD)) return undefined;
  const code = codeAt + CODE_FIELD.length;
  const noCode = buffer[code] === QUOTE;
  const delegated =
    buffer.subarray(code, code + DELEGATION.length).equals(DELEGATION) &&
    buffer[code + DELEGATION.length + 40] === QUOTE;
  if (!noCode && !delegated) return undefined;
  const nonce = BigInt(buffer.toString('latin1', nonceAt, nonceEnd));
  if (nonce === 0n) return undefined;
  return { address: buffer.toString('latin1', addressAt, at), nonce };
}

/**
 * When the state file is not a whole dump and a last good copy exists: moves the damaged file aside
 * (`state.json.damaged-<ms>`, kept for a post-mortem) and puts the copy in its place. Returns the damaged
 * file's new path, or undefined when there was nothing to restore (the file is whole, or no copy exists).
 */
export function restoreLastGoodDump(statePath: string): string | undefined {
  const copy = lastGoodDumpPath(statePath);
  if (!fs.existsSync(statePath) || !fs.existsSync(copy)) return undefined;
  if (isWholeDump(statePath)) return undefined;
  return swapInLastGoodDump(statePath, 'damaged');
}

/**
 * Moves the state file aside (`state.json.<label>-<ms>`, kept for a post-mortem) and puts the last good copy,
 * which must exist, in its place. Returns the moved file's new path.
 */
export function swapInLastGoodDump(statePath: string, label: StateAsideLabel): string {
  const aside = putStateAside(statePath, label);
  fs.copyFileSync(lastGoodDumpPath(statePath), statePath);
  return aside;
}

/** Why a state file was put aside: cut short (anvil refuses it), or its state ahead of its blocks. */
export type StateAsideLabel = 'damaged' | 'inconsistent';

/** Moves the state file aside (`state.json.<label>-<ms>`, kept for a post-mortem); returns its new path. */
export function putStateAside(statePath: string, label: StateAsideLabel): string {
  const aside = `${statePath}.${label}-${Date.now()}`;
  fs.renameSync(statePath, aside);
  return aside;
}

/** Where the embedded chain keeps its genesis block's time (`{"timestamp": <unix seconds>}`). */
export function genesisTimePath(statePath: string): string {
  return path.join(path.dirname(statePath), 'genesis.json');
}

/** The genesis time recorded beside the state file, or undefined (none recorded, unreadable). */
export function readGenesisTime(statePath: string): bigint | undefined {
  try {
    const { timestamp } = JSON.parse(fs.readFileSync(genesisTimePath(statePath), 'utf8')) as {
      timestamp?: unknown;
    };
    return typeof timestamp === 'number' && Number.isSafeInteger(timestamp) && timestamp > 0
      ? BigInt(timestamp)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file's stat once it has not been written for `quietMs` (every write of a dump moves its modification
 * time), waiting at most `patienceMs`: a copy started in the middle of one of anvil's dumps would be thrown
 * away. Undefined when anvil kept writing all along.
 */
async function settledStat(
  file: string,
  quietMs = 300,
  patienceMs = 5_000,
): Promise<fs.BigIntStats | undefined> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    const stat = await fs.promises.stat(file, { bigint: true });
    const quietFor = Date.now() - Number(stat.mtimeNs / 1_000_000n);
    if (quietFor >= quietMs) return stat;
    if (Date.now() + quietMs - quietFor > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, quietMs - quietFor));
  }
}

const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;

/** `bytes` without trailing JSON whitespace. */
function trimEnd(bytes: Buffer): Buffer {
  let end = bytes.length;
  while (end > 0 && [0x20, 0x0a, 0x0d, 0x09].includes(bytes[end - 1]!)) end--;
  return bytes.subarray(0, end);
}
