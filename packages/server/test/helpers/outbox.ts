import fs from 'node:fs';
import path from 'node:path';

/** One message the embedded mailer wrote to `DATA_DIR/outbox/`, its body and subject decoded. */
export interface OutboxMail {
  file: string;
  /** When the mailer wrote it: the `Date.now()` the file is named after (OutboxMailer). */
  at: number;
  /** The headers (the Subject unfolded and decoded), a blank line, the decoded body. */
  text: string;
  /** The Subject header, decoded (RFC 2047 encoded words of a mail in Japanese, Arabic, …). */
  subject: string;
  /** The body alone, decoded from its transfer encoding (quoted-printable, base64 or 7bit) as UTF-8. */
  body: string;
  /** The Content-Language header: the language the mail is written in. */
  language: string | undefined;
}

/** Quoted-printable bytes (`=XX`, soft line breaks `=` at line ends) to UTF-8 text. */
function quotedPrintable(encoded: string, underscoreIsSpace = false): string {
  const soft = encoded.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = soft[i] === '=' ? soft.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(underscoreIsSpace && soft[i] === '_' ? 0x20 : soft.charCodeAt(i));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A header value unfolded, its RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded. */
function decodeHeader(value: string): string {
  const unfolded = value.replace(/\r?\n[ \t]+/g, ' ');
  // Whitespace between two encoded words is not text; a character's bytes may span both words.
  const joined = unfolded.replace(/\?=\s+=\?/g, '?==?');
  return joined.replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)+/g, (run) => {
    const bytes = [...run.matchAll(/=\?[^?]+\?([QqBb])\?([^?]*)\?=/g)].map(([, encoding, data]) =>
      encoding!.toUpperCase() === 'B'
        ? Buffer.from(data!, 'base64')
        : Buffer.from(quotedPrintable(data!, true), 'utf8'),
    );
    return Buffer.concat(bytes).toString('utf8');
  });
}

/** Splits an .eml file into its decoded parts. */
function parseMail(raw: string): Pick<OutboxMail, 'text' | 'subject' | 'body' | 'language'> {
  const split = /\r?\n\r?\n/.exec(raw);
  const head = split ? raw.slice(0, split.index) : raw;
  const encoded = split ? raw.slice(split.index + split[0].length) : '';
  const header = (name: string): string | undefined => {
    const match = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head);
    return match ? decodeHeader(match[1]!) : undefined;
  };
  const encoding = (header('Content-Transfer-Encoding') ?? '7bit').toLowerCase();
  const body =
    encoding === 'quoted-printable'
      ? quotedPrintable(encoded)
      : encoding === 'base64'
        ? Buffer.from(encoded.replace(/\s+/g, ''), 'base64').toString('utf8')
        : encoded;
  const subject = header('Subject') ?? '';
  const headers = head.replace(/^Subject:.*(?:\r?\n[ \t].*)*/im, () => `Subject: ${subject}`);
  return { text: `${headers}\n\n${body}`, subject, body, language: header('Content-Language') };
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
      const mail = parseMail(fs.readFileSync(file, 'utf8'));
      return mail.text.includes(email) ? [{ file, at: Number(at), ...mail }] : [];
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
