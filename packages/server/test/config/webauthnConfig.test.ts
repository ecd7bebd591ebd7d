import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('passkey settings (PUBLIC_URL, WEBAUTHN_ORIGINS)', () => {
  it("takes the relying party id from PUBLIC_URL's host and its origin first", () => {
    const config = loadConfig({ PUBLIC_URL: 'https://auth.example.com/base/' });
    expect(config.webauthn).toEqual({ rpId: 'auth.example.com', origins: ['https://auth.example.com'] });
  });

  it('adds the WEBAUTHN_ORIGINS, trimmed, without trailing slashes', () => {
    const config = loadConfig({
      PUBLIC_URL: 'https://auth.example.com',
      WEBAUTHN_ORIGINS: ' https://game.example.com/ , http://localhost:5173',
    });
    expect(config.webauthn.origins).toEqual([
      'https://auth.example.com',
      'https://game.example.com',
      'http://localhost:5173',
    ]);
  });

  it('refuses an entry that is not an origin', () => {
    expect(() => loadConfig({ WEBAUTHN_ORIGINS: 'https://game.example.com/path' })).toThrow(
      /WEBAUTHN_ORIGINS/,
    );
    expect(() => loadConfig({ WEBAUTHN_ORIGINS: 'game.example.com' })).toThrow(/WEBAUTHN_ORIGINS/);
  });
});
