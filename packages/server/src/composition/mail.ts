import path from 'node:path';
import type { Mailer } from '../services/mail/mailer.js';
import { OutboxMailer } from '../services/mail/outboxMailer.js';
import { SmtpMailer } from '../services/mail/smtpMailer.js';

/** SMTP when `SMTP_URL` is set, otherwise `.eml` files in `DATA_DIR/outbox/`. */
export function createMailer(config: {
  smtpUrl: string | undefined;
  mailFrom: string;
  dataDir: string;
}): Mailer {
  return config.smtpUrl
    ? new SmtpMailer(config.smtpUrl, config.mailFrom)
    : new OutboxMailer(path.join(config.dataDir, 'outbox'), config.mailFrom);
}
