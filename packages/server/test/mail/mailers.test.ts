import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/composition/mail.js';
import { OutboxMailer } from '../../src/services/mail/outboxMailer.js';
import { SmtpMailer } from '../../src/services/mail/smtpMailer.js';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** A minimal real SMTP server (RFC 5321 happy path, no TLS, no auth) that records each message. */
function startSmtpServer(): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = net.createServer((socket) => {
    let buffer = '';
    let inData = false;
    let current: Received = { from: '', to: [], data: '' };
    socket.write('220 test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          received.push(current);
          current = { from: '', to: [], data: '' };
          socket.write('250 OK queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'MAIL') current.from = line;
        if (verb === 'RCPT') current.to.push(line);
        if (verb === 'DATA') inData = true;
        if (verb === 'QUIT') socket.end('221 bye\r\n');
        else if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test\r\n');
        else if (verb === 'DATA') socket.write('354 go ahead\r\n');
        else socket.write('250 OK\r\n');
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        received,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

describe('mailers', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let dataDir: string;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-mail-'));
  });
  afterAll(async () => {
    await smtp.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends through SMTP_URL when it is set, writing nothing to the outbox', async () => {
    const mailer = createMailer({
      // Plain SMTP must be asked for explicitly (smtpTls.test.ts covers the STARTTLS default).
      smtpUrl: `smtp://127.0.0.1:${smtp.port}?requireTLS=false`,
      mailFrom: 'dauth <no-reply@dauth.local>',
      dataDir,
    });
    expect(mailer).toBeInstanceOf(SmtpMailer);
    await mailer.send({
      to: 'player@example.com',
      subject: 'Your dauth verification code',
      text: 'code is 042042',
    });
    await mailer.close();
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.from).toContain('no-reply@dauth.local');
    expect(smtp.received[0]!.to).toEqual(['RCPT TO:<player@example.com>']);
    expect(smtp.received[0]!.data).toMatch(/^Subject: Your dauth verification code$/m);
    expect(smtp.received[0]!.data).toContain('code is 042042');
    expect(fs.existsSync(path.join(dataDir, 'outbox'))).toBe(false);
  });

  it('writes .eml files to DATA_DIR/outbox without SMTP_URL', async () => {
    const mailer = createMailer({ smtpUrl: undefined, mailFrom: 'dauth <no-reply@dauth.local>', dataDir });
    expect(mailer).toBeInstanceOf(OutboxMailer);
    await mailer.send({ to: 'player@example.com', subject: 'Hello', text: 'code is 123123' });
    const files = fs.readdirSync(path.join(dataDir, 'outbox'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d+-[0-9a-f-]{36}\.eml$/);
    const text = fs.readFileSync(path.join(dataDir, 'outbox', files[0]!), 'utf8');
    expect(text).toMatch(/^To: player@example\.com$/m);
    expect(text).toContain('code is 123123');
  });
});
