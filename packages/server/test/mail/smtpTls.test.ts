import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const sendOneMail = fileURLToPath(new URL('./fixtures/sendOneMail.ts', import.meta.url));

interface Delivery {
  user: string | undefined;
  secure: boolean;
  data: string;
}

/** A test CA and a certificate for localhost and 127.0.0.1 signed by it (real openssl). */
function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run([
    'req',
    '-x509',
    ...ec,
    '-subj',
    '/CN=dauth test CA',
    '-days',
    '1',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  ]);
  run(['req', ...ec, '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr']);
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  run([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'san.ext',
    '-out',
    'server.pem',
  ]);
  return {
    ca: path.join(dir, 'ca.pem'),
    key: fs.readFileSync(path.join(dir, 'server.key'), 'utf8'),
    cert: fs.readFileSync(path.join(dir, 'server.pem'), 'utf8'),
  };
}

/** A real SMTP server (nodemailer's smtp-server) that accepts one account and records deliveries. */
async function startSmtp(options: SMTPServerOptions): Promise<{
  port: number;
  deliveries: Delivery[];
  close(): Promise<void>;
}> {
  const deliveries: Delivery[] = [];
  const server = new SMTPServer({
    ...options,
    authMethods: ['PLAIN', 'LOGIN'],
    // AUTH only over TLS: credentials never cross the wire in the clear.
    allowInsecureAuth: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'mailer' && auth.password === 'right s3cret') callback(null, { user: 'mailer' });
      else callback(new Error('535 authentication failed'));
    },
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      stream.on('end', () => {
        deliveries.push({ user: session.user as string | undefined, secure: session.secure, data });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    deliveries,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Runs `sendOneMail.ts` with this environment; resolves with its exit code and stderr. */
function sendOne(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions', 'development', '--import', 'tsx', sendOneMail], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe('SMTP_URL with TLS and authentication, against a real SMTP server', () => {
  let dir: string;
  let certs: ReturnType<typeof makeCertificates>;
  let starttls: Awaited<ReturnType<typeof startSmtp>>;
  let implicitTls: Awaited<ReturnType<typeof startSmtp>>;
  let plainOnly: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-smtp-tls-'));
    certs = makeCertificates(dir);
    starttls = await startSmtp({ key: certs.key, cert: certs.cert, secure: false });
    implicitTls = await startSmtp({ key: certs.key, cert: certs.cert, secure: true });
    // A server (or a downgrading man in the middle) that offers no STARTTLS; no AUTH needed.
    plainOnly = await startSmtp({ secure: false, disabledCommands: ['STARTTLS', 'AUTH'] });
  }, 30_000);
  afterAll(async () => {
    await starttls?.close();
    await implicitTls?.close();
    await plainOnly?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const credentials = `mailer:${encodeURIComponent('right s3cret')}`;

  it('upgrades with STARTTLS, verifies the certificate against the configured CA, then authenticates', async () => {
    const result = await sendOne({
      SMTP_URL: `smtp://${credentials}@localhost:${starttls.port}?requireTLS=true`,
      NODE_EXTRA_CA_CERTS: certs.ca,
    });
    expect(result).toEqual({ code: 0, stderr: '' });
    expect(starttls.deliveries).toHaveLength(1);
    expect(starttls.deliveries[0]).toMatchObject({ user: 'mailer', secure: true });
    expect(starttls.deliveries[0]!.data).toContain('code is 271828');
  });

  it('speaks TLS from the first byte with smtps://', async () => {
    const result = await sendOne({
      SMTP_URL: `smtps://${credentials}@localhost:${implicitTls.port}`,
      NODE_EXTRA_CA_CERTS: certs.ca,
    });
    expect(result).toEqual({ code: 0, stderr: '' });
    expect(implicitTls.deliveries).toHaveLength(1);
    expect(implicitTls.deliveries[0]).toMatchObject({ user: 'mailer', secure: true });
  });

  it('refuses a server whose certificate it cannot verify, and sends nothing', async () => {
    const before = starttls.deliveries.length;
    const result = await sendOne({
      SMTP_URL: `smtp://${credentials}@localhost:${starttls.port}?requireTLS=true`,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/certificate/i);
    expect(result.stderr).not.toContain('right s3cret');
    expect(starttls.deliveries).toHaveLength(before);
  });

  it('fails on wrong credentials, and sends nothing', async () => {
    const before = starttls.deliveries.length;
    const result = await sendOne({
      SMTP_URL: `smtp://mailer:wrong@localhost:${starttls.port}?requireTLS=true`,
      NODE_EXTRA_CA_CERTS: certs.ca,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/auth|535/i);
    expect(starttls.deliveries).toHaveLength(before);
  });

  it('refuses to send in the clear when smtp:// finds no STARTTLS, unless the URL says requireTLS=false', async () => {
    const refused = await sendOne({ SMTP_URL: `smtp://localhost:${plainOnly.port}` });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/STARTTLS|TLS/i);
    expect(plainOnly.deliveries).toHaveLength(0);

    const explicit = await sendOne({ SMTP_URL: `smtp://localhost:${plainOnly.port}?requireTLS=false` });
    expect(explicit).toEqual({ code: 0, stderr: '' });
    expect(plainOnly.deliveries).toHaveLength(1);
    expect(plainOnly.deliveries[0]).toMatchObject({ secure: false });
  });
});
