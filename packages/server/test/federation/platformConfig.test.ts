import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { applyPreset, applyPresets, ProviderConfigError } from '../../src/services/federation/presets.js';
import { ProviderRegistry } from '../../src/services/federation/providerRegistry.js';
import { publicKeyUrlAllowed } from '../../src/services/federation/platform/gameCenter.js';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ProviderConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ProviderConfigError');
}

const deps = {
  fetch: () => Promise.reject(new Error('no network in this test')),
  now: Date.now,
  claimOnce: () => Promise.resolve(true),
};

/**
 * The platform kinds' entries in IDENTITY_PROVIDERS (decisions §9): each kind's required fields, its
 * defaults, and a typo or a missing credential stopping the start with the entry and field named.
 */
describe('platform kinds in IDENTITY_PROVIDERS', () => {
  it('applies the defaults: names, and the Steam, EOS, Apple and Google endpoints left to the providers', () => {
    const [steam, epic, gc, gpg] = applyPresets([
      { id: 'steam_game', kind: 'steam_ticket', app_id: 480, web_api_key: 'K', identity: 'dauth' },
      { id: 'epic', kind: 'epic', client_id: 'eos-client' },
      { id: 'gc', kind: 'game_center', bundle_id: 'com.example.game' },
      { id: 'gpg', kind: 'google_play_games', client_id: 'c', client_secret: 's' },
    ]);
    expect(steam).toMatchObject({ kind: 'steam_ticket', name: 'Steam', app_id: '480' });
    expect(epic).toMatchObject({ name: 'Epic Games', client_id: 'eos-client' });
    expect(gc).toMatchObject({ name: 'Game Center' });
    expect(gpg).toMatchObject({ name: 'Google Play Games' });
    const registry = new ProviderRegistry([steam!, epic!, gc!, gpg!], deps);
    expect(registry.list()).toEqual([]);
    expect(registry.listPlatforms().map((p) => [p.id, p.kind, p.identityKey])).toEqual([
      ['steam_game', 'steam_ticket', 'steam'],
      ['epic', 'epic', 'epic'],
      ['gc', 'game_center', 'gc'],
      ['gpg', 'google_play_games', 'gpg'],
    ]);
    expect(registry.nameOfIdentityKey('steam')).toBe('Steam');
  });

  it('names each missing field, a typo and a bad value, per entry', () => {
    expect(problemsOf(() => applyPreset({ id: 's', kind: 'steam_ticket', app_id: '480' }))).toEqual([
      'identity provider "s": web_api_key is required for steam_ticket',
      'identity provider "s": identity is required for steam_ticket',
    ]);
    expect(problemsOf(() => applyPreset({ id: 'e', kind: 'epic' }))).toEqual([
      'identity provider "e": client_id is required for epic',
    ]);
    expect(problemsOf(() => applyPreset({ id: 'g', kind: 'google_play_games', client_id: 'c' }))).toEqual([
      'identity provider "g": client_secret is required for google_play_games',
    ]);
    expect(problemsOf(() => applyPreset({ id: 'gc', kind: 'game_center', bundle_ids: ['x'] }))).toEqual([
      'identity provider "gc": bundle_id is required for game_center',
    ]);
    expect(
      problemsOf(() =>
        applyPreset({ id: 's', kind: 'steam_ticket', app_id: 'abc', webapi_key: 'K', identity: 'd' }),
      ),
    ).toEqual([
      'identity provider "s": app_id: must be the Steam app id (digits)',
      'identity provider "s": Unrecognized key: "webapi_key"',
    ]);
    expect(
      problemsOf(() =>
        applyPreset({ id: 'gc', kind: 'game_center', bundle_id: 'b', public_key_host: 'evil.example' }),
      ),
    ).toEqual([
      'identity provider "gc": public_key_host: must be apple.com or one of its subdomains (a loopback host only for local tries)',
    ]);
    expect(
      problemsOf(() =>
        applyPreset({ id: 'gc', kind: 'game_center', bundle_id: 'b', trust_anchor: 'not a PEM' }),
      )[0],
    ).toMatch(/^identity provider "gc": trust_anchor must be PEM certificates or @file naming them/);
    expect(
      problemsOf(() =>
        applyPreset({ id: 'e', kind: 'epic', client_id: 'c', jwks_uri: 'http://eos.example/jwks' }),
      ),
    ).toEqual(['identity provider "e": jwks_uri: must use https (http only to localhost)']);
  });

  it('a bad entry stops the start, naming IDENTITY_PROVIDERS, the entry and the field', () => {
    expect(() =>
      loadConfig({
        IDENTITY_PROVIDERS: JSON.stringify([
          { id: 'steam_game', kind: 'steam_ticket', app_id: '480', identity: 'd' },
        ]),
      }),
    ).toThrow(
      /IDENTITY_PROVIDERS\[0\] identity provider "steam_game": web_api_key is required for steam_ticket/,
    );
  });

  it('the shipped anchor loads (DigiCert Trusted Root G4) and the production key URL rule is strict', () => {
    const [gc] = applyPresets([{ id: 'gc', kind: 'game_center', bundle_id: 'com.example.game' }]);
    expect(() => new ProviderRegistry([gc!], deps)).not.toThrow();
    expect(publicKeyUrlAllowed('https://static.gc.apple.com/public-key/gc-prod-10.cer', 'apple.com')).toBe(
      true,
    );
    expect(publicKeyUrlAllowed('https://apple.com/x.cer', 'apple.com')).toBe(true);
    for (const url of [
      'http://static.gc.apple.com/public-key/gc-prod-10.cer',
      'https://static.gc.apple.com.evil.example/x.cer',
      'https://notapple.com/x.cer',
      'https://a@static.gc.apple.com/x.cer',
      'ftp://static.gc.apple.com/x.cer',
      'https://17.0.0.1/x.cer',
      'not a url',
    ]) {
      expect(publicKeyUrlAllowed(url, 'apple.com'), url).toBe(false);
    }
    expect(publicKeyUrlAllowed('http://127.0.0.1:9/x.cer', '127.0.0.1')).toBe(true);
    expect(publicKeyUrlAllowed('http://localhost:9/x.cer', '127.0.0.1')).toBe(false);
  });
});
