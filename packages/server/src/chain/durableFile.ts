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
  await fs.rename(temporary, file);
  const dir = await fs.open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
