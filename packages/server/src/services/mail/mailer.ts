/** One e-mail to one recipient, plain text. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * The port every mail-sending use case depends on. Two adapters: `OutboxMailer` writes RFC 5322
 * `.eml` files to `DATA_DIR/outbox/` (embedded default), `SmtpMailer` sends through `SMTP_URL`.
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
