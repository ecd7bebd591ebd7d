import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Replaces `file` with `text` so that, after a crash or a power cut at any moment, it holds either the whole
 * new text or the whole old one: a temporary file beside it is written and fsynced, renamed over it, and the
 * directory fsynced (the rename itself is durable only then). One writer per file (the chain directory's
 * owner lock), so the temporary file has a fixed name and a crash leaves no litter.
 */
export async function replaceFileDurably(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp`;
  const handle = await fs.open(temporary, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await renameDurably(temporary, file);
}

/**
 * Replaces `file` with a copy of `source` made by the kernel (no byte of it passes through JavaScript), the
 * same way: only when `accept` finds the temporary copy good (answers something other than undefined) is it
 * fsynced and renamed over `file`; otherwise it is removed and `file` stays as it was. Answers `accept`'s.
 */
export async function copyFileDurably<T>(
  source: string,
  file: string,
  accept: (copy: string) => Promise<T | undefined>,
): Promise<T | undefined> {
  const temporary = `${file}.tmp`;
  await fs.copyFile(source, temporary);
  let accepted: T | undefined;
  try {
    accepted = await accept(temporary);
    if (accepted !== undefined) {
      const handle = await fs.open(temporary, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  } finally {
    if (accepted === undefined) await fs.rm(temporary, { force: true });
  }
  if (accepted !== undefined) await renameDurably(temporary, file);
  return accepted;
}

/** Renames a fsynced temporary file over `file` and fsyncs the directory, which makes the rename durable. */
async function renameDurably(temporary: string, file: string): Promise<void> {
  await fs.rename(temporary, file);
  const dir = await fs.open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
