import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { mailContent, type MailMessage, type Mailer } from './mailer.js';

/**
 * Writes each message as an `.eml` file (mode 0600, the directory 0700: a message may carry a
 * verification code) to the outbox directory. The file appears atomically (written under a
 * temporary name, then renamed), so a reader never sees half a message.
 */
export class OutboxMailer implements Mailer {
  readonly #transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(
    readonly directory: string,
    private readonly from: string,
  ) {}

  async send(message: MailMessage): Promise<void> {
    const info = await this.#transport.sendMail({
      from: this.from,
      to: message.to,
      ...mailContent(message),
    });
    await fs.mkdir(this.directory, { recursive: true, mode: 0o700 });
    const name = `${Date.now()}-${randomUUID()}.eml`;
    const temporary = path.join(this.directory, `.${name}.tmp`);
    await fs.writeFile(temporary, info.message, { mode: 0o600 });
    await fs.rename(temporary, path.join(this.directory, name));
  }

  async close(): Promise<void> {
    this.#transport.close();
  }
}
