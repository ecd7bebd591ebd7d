import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino(loggerOptions('info'), stream), lines };
}

describe('the logger never writes a secret', () => {
  it('redacts secret keys at the top level and one level down, and the auth headers of a request', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        password: 'hunter2-top',
        body: { password: 'hunter2-nested', email: 'a@example.com', pin_hash: 'ab'.repeat(32) },
        token: 'eyJhbGciOi.top',
        refresh: { refresh_token: 'rt-secret', key_share_user: 'share' },
        req: { headers: { authorization: 'Bearer eyJ.secret', cookie: 'dauth_session=s3cret' } },
      },
      'request',
    );
    const line = lines[0]!;
    const text = JSON.stringify(line);
    for (const secret of ['hunter2', 'eyJ', 'rt-secret', 'share"', 's3cret', 'ab'.repeat(32)]) {
      expect(text).not.toContain(secret);
    }
    expect(line).toMatchObject({
      password: '[redacted]',
      body: { password: '[redacted]', email: 'a@example.com', pin_hash: '[redacted]' },
      token: '[redacted]',
      refresh: { refresh_token: '[redacted]', key_share_user: '[redacted]' },
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]' } },
    });
  });

  it('keeps an ERC-20 contract address under `token` readable, and still hides a bearer token there', () => {
    const { logger, lines } = capture();
    const contract = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    logger.info({ token: contract, body: { token: contract, to: '0x' + '1'.repeat(40) } }, 'transfer');
    logger.info({ token: '0x' + 'ab'.repeat(32), body: { token: 'eyJhbGciOi.nested' } }, 'not an address');
    expect(lines[0]).toMatchObject({ token: contract, body: { token: contract } });
    // a 32-byte hex value (a hash, a key) is not an address: redacted like any other `token`
    expect(lines[1]).toMatchObject({ token: '[redacted]', body: { token: '[redacted]' } });
  });
});
