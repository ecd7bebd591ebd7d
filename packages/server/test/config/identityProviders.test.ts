import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const google = { id: 'google', client_id: 'web.apps.googleusercontent.com', client_secret: 'secret' };

describe('IDENTITY_PROVIDERS', () => {
  it('is empty when unset', () => {
    expect(loadConfig({}).identityProviders).toEqual([]);
  });

  it('takes a JSON array, presets applied', () => {
    const [provider] = loadConfig({ IDENTITY_PROVIDERS: JSON.stringify([google]) }).identityProviders;
    expect(provider).toMatchObject({
      id: 'google',
      kind: 'oidc',
      name: 'Google',
      issuer: 'https://accounts.google.com',
      client_ids: ['web.apps.googleusercontent.com'],
    });
  });

  it('reads @file, and fills a steam entry’s Web API key from STEAM_WEB_API_KEY', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-idp-')), 'providers.json');
    fs.writeFileSync(file, JSON.stringify([google, { id: 'steam' }]));
    const config = loadConfig({ IDENTITY_PROVIDERS: `@${file}`, STEAM_WEB_API_KEY: 'steam-key' });
    expect(config.identityProviders.map((p) => p.id)).toEqual(['google', 'steam']);
    expect(config.identityProviders[1]).toMatchObject({ kind: 'steam', web_api_key: 'steam-key' });
  });

  it('refuses bad JSON, a missing file, a non-array and a bad entry, naming IDENTITY_PROVIDERS', () => {
    expect(() => loadConfig({ IDENTITY_PROVIDERS: '[{' })).toThrow(/IDENTITY_PROVIDERS: not valid JSON/);
    expect(() => loadConfig({ IDENTITY_PROVIDERS: '@/nonexistent/providers.json' })).toThrow(
      /IDENTITY_PROVIDERS: cannot read/,
    );
    expect(() => loadConfig({ IDENTITY_PROVIDERS: '{}' })).toThrow(/IDENTITY_PROVIDERS/);
    expect(() =>
      loadConfig({ IDENTITY_PROVIDERS: JSON.stringify([{ id: 'google', client_id: 'x' }]) }),
    ).toThrow(/IDENTITY_PROVIDERS\[0\].*client_secret/);
    expect(() => loadConfig({ IDENTITY_PROVIDERS: JSON.stringify([google, google]) })).toThrow(/used twice/);
  });
});
