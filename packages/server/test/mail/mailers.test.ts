import { randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/composition/mail.js';
import { OutboxMailer } from '../../src/services/mail/outboxMailer.js';
import { SmtpMailer } from '../../src/services/mail/smtpMailer.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Received {
  from: string;
  to: string[];
  data: string;
}

interface SmtpServer {
  port: number;
  received: Received[];
  /** The first message (received already, or the next to arrive) that `matches`. */
  next(matches: (message: Received) => boolean): Promise<Received>;
  close(): Promise<void>;
}

/** A minimal real SMTP server (RFC 5321 happy path, no TLS, no auth) that records each message. */
function startSmtpServer(): Promise<SmtpServer> {
  const received: Received[] = [];
  const arrivals = new EventEmitter();
  const next = async (matches: (message: Received) => boolean): Promise<Received> => {
    for (;;) {
      const found = received.find(matches);
      if (found) return found;
      await once(arrivals, 'message');
    }
  };
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
          arrivals.emit('message');
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
        next,
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

/** A message's text body, quoted-printable decoded (soft line breaks joined, `=XX` bytes restored). */
const bodyOf = (message: Received): string =>
  Buffer.from(
    message.data
      .slice(message.data.search(/\r?\n\r?\n/))
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

describe('security mail over SMTP_URL (a real dauth, a real SMTP server)', () => {
  let smtp: SmtpServer;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}?requireTLS=false` } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const send = (path: string, body: unknown, token?: string) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const mailTo = (email: string, subject: string) =>
    smtp.next(
      (m) => m.to.includes(`RCPT TO:<${email}>`) && new RegExp(`^Subject: ${subject}$`, 'm').test(m.data),
    );

  it('a password change of a verified account mails its "this wasn\'t me" link; GET shows the confirm page, POST ends the sessions', async () => {
    const email = `smtp-${randomBytes(5).toString('hex')}@example.com`;
    const password = 'correct horse battery';
    expect((await send('/v1/dev-user/register', { email, password })).status).toBe(201);
    const login = await send('/v1/dev-user/login_devuser', { email, password, client_id: 'dauth:console' });
    const { token } = (await login.json()) as { token: string };
    const signup = bodyOf(await mailTo(email, 'Confirm your dauth e-mail address'));
    const code = /enter the code (\d{6})/.exec(signup)![1]!;
    expect((await send('/v1/dev-user/verify-email', { code }, token)).status).toBe(200);

    const changed = await send(
      '/v1/dev-user/password',
      { current_password: password, new_password: 'a whole new battery staple' },
      token,
    );
    expect(changed.status).toBe(200);
    const mail = await mailTo(email, 'Your dauth password was changed');
    expect(mail.from).toContain('no-reply@dauth.local');
    const text = bodyOf(mail);
    expect(text).toContain('The password of your dauth account was changed.');
    const [link, secureToken] = new RegExp(`(${server.url}/account/secure\\?token=([A-Za-z0-9_-]{43}))`)
      .exec(text)!
      .slice(1);
    expect(fs.existsSync(path.join(server.dataDir, 'outbox'))).toBe(false);

    const page = await fetch(link!, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post" action="/account/secure">');
    const authed = async () =>
      (await fetch(`${server.url}/v1/dev-user/passkeys`, { headers: { authorization: `Bearer ${token}` } }))
        .status;
    expect(await authed()).toBe(200);

    const confirmed = await fetch(`${server.url}/account/secure`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
        origin: new URL(server.url).origin,
      },
      body: new URLSearchParams({ token: secureToken! }).toString(),
    });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Your account is secured');
    expect(await authed()).toBe(401);
    const refused = await send('/v1/dev-user/login_devuser', {
      email,
      password: 'a whole new battery staple',
    });
    expect(await refused.json()).toMatchObject({ success: false, error: 'password_reset_required' });
  }, 60_000);
});
