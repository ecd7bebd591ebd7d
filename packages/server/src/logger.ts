import type { LoggerOptions } from 'pino';

/**
 * Paths that may carry secrets anywhere in a logged object. pino removes them before serialising,
 * so a careless `log.info({ body })` still cannot leak a password, PIN hash or key share.
 */
const secretKeys = [
  'password',
  'client_secret',
  'clientSecret',
  'code',
  'code_verifier',
  'access_token',
  'refresh_token',
  'token',
  'pin_hash',
  'new_pin_hash',
  'key_share_user',
  'mnemonic',
  'mnemonic_enc',
  'encrypted_message',
  'verification_token',
  'privateKey',
  'encryption_key',
  'encryption_iv',
  'gcm_key',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        ...secretKeys,
        ...secretKeys.map((k) => `*.${k}`),
      ],
      censor: '[redacted]',
    },
  };
}
