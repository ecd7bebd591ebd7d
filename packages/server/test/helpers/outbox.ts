import fs from 'node:fs';
import path from 'node:path';

/** One message the embedded mailer wrote to `DATA_DIR/outbox/`, its quoted-printable body decoded. */
export interface OutboxMail {
  file: string;
  /** When the mailer wrote it: the `Date.now()` the file is named after (OutboxMailer). */
  at: number;
  text: string;
}

/**
 * Mails addressed to `email`, newest first. The time comes from the file name, not the file's mtime: the
 * kernel stamps files from its coarse clock, which can be a tick (up to 10 ms) behind `Date.now()`, so a
 * mail written just after a test's `Date.now()` could look older than it (a CI flake on Node 22).
 */
export function mailsTo(dataDir: string, email: string): OutboxMail[] {
  const outbox = path.join(dataDir, 'outbox');
  if (!fs.existsSync(outbox)) return [];
  return fs
    .readdirSync(outbox)
    .flatMap((name) => {
      const at = /^(\d+)-.*\.eml$/.exec(name)?.[1];
      if (at === undefined) return [];
      const file = path.join(outbox, name);
      // Quoted-printable body: undo soft line breaks and `=3D`.
      const text = fs
        .readFileSync(file, 'utf8')
        .replace(/=\r?\n/g, '')
        .replace(/=3D/g, '=');
      return text.includes(email) ? [{ file, at: Number(at), text }] : [];
    })
    .sort((a, b) => b.at - a.at || b.file.localeCompare(a.file));
}

/**
 * Waits (up to `timeoutMs`) for the newest mail to `email` written at or after `since` (a `Date.now()` taken
 * before the request that sends it) whose text includes `includes`.
 */
export async function waitForMail(
  dataDir: string,
  email: string,
  options: { since?: number; includes?: string; timeoutMs?: number } = {},
): Promise<OutboxMail> {
  const { since = 0, includes = '', timeoutMs = 10_000 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = mailsTo(dataDir, email).find((m) => m.at >= since && m.text.includes(includes));
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail to ${email} since ${since} including "${includes}"`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
