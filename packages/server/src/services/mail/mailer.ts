/** One e-mail to one recipient, plain text. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The BCP 47 tag of the language it is written in (its `Content-Language`); English when absent. */
  language?: string | undefined;
}

/**
 * What both adapters hand nodemailer besides the addresses. The body is quoted-printable whatever its
 * script (nodemailer would pick base64 for mostly non-Latin text): codes and links stay readable ASCII in
 * the raw message, as a mail written in Japanese or Arabic carries them too.
 */
export function mailContent(message: MailMessage): {
  subject: string;
  text: string;
  textEncoding: 'quoted-printable';
  headers: Record<string, string>;
} {
  return {
    subject: message.subject,
    text: message.text,
    textEncoding: 'quoted-printable',
    headers: { 'Content-Language': message.language ?? 'en' },
  };
}

/**
 * The port every mail-sending use case depends on. Two adapters: `OutboxMailer` writes RFC 5322
 * `.eml` files to `DATA_DIR/outbox/` (embedded default), `SmtpMailer` sends through `SMTP_URL`.
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
