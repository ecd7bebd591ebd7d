import nodemailer, { type Transporter } from 'nodemailer';
import { mailContent, type MailMessage, type Mailer } from './mailer.js';

/**
 * `smtp://` upgrades with STARTTLS, and by default refuses to go on without it (`requireTLS`): a
 * server that does not offer STARTTLS, or a man in the middle stripping it, gets no credentials and
 * no recovery code in the clear. `?requireTLS=false` in the URL explicitly allows plain SMTP (a relay
 * on the same host); `smtps://` is TLS from the first byte.
 */
export function smtpTransportUrl(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  if (url.protocol === 'smtp:' && !url.searchParams.has('requireTLS'))
    url.searchParams.set('requireTLS', 'true');
  return url.toString();
}

/** Sends through the SMTP server of `SMTP_URL` (`smtp://` or `smtps://`, credentials in the URL). */
export class SmtpMailer implements Mailer {
  readonly #transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.#transport = nodemailer.createTransport(smtpTransportUrl(smtpUrl));
  }

  async send(message: MailMessage): Promise<void> {
    await this.#transport.sendMail({
      from: this.from,
      to: message.to,
      ...mailContent(message),
    });
  }

  async close(): Promise<void> {
    this.#transport.close();
  }
}
