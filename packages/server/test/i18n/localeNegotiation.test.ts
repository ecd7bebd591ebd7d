import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiateLocale } from '../../src/i18n/locales.js';
import { translatorFor } from '../../src/i18n/translator.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('the page locale (decisions §9: ui_locales, then the dauth_locale cookie, then Accept-Language)', () => {
  it('ui_locales outranks the cookie, which outranks Accept-Language', () => {
    const all = { uiLocales: 'fr-CA de', cookie: 'ja', acceptLanguage: 'ko-KR,ko;q=0.9' };
    expect(negotiateLocale(all)).toBe('fr');
    expect(negotiateLocale({ ...all, uiLocales: undefined })).toBe('ja');
    expect(negotiateLocale({ ...all, uiLocales: undefined, cookie: undefined })).toBe('ko');
    expect(negotiateLocale({})).toBe('en');
  });

  it('finds the closest supported locale by CLDR matching', () => {
    expect(negotiateLocale({ acceptLanguage: 'zh-CN,zh;q=0.9' })).toBe('zh-Hans');
    expect(negotiateLocale({ acceptLanguage: 'pt-PT' })).toBe('pt-BR');
    expect(negotiateLocale({ acceptLanguage: 'es-MX,es;q=0.8,en;q=0.5' })).toBe('es');
    expect(negotiateLocale({ acceptLanguage: 'ar-EG' })).toBe('ar');
    expect(negotiateLocale({ uiLocales: 'sw tlh ru' })).toBe('ru');
  });

  it('ignores junk and an unsupported cookie, falling back in order', () => {
    expect(negotiateLocale({ uiLocales: '!!! ', cookie: 'xx', acceptLanguage: 'de;q=0.1, *;q=0.5' })).toBe(
      'de',
    );
    expect(negotiateLocale({ cookie: '<script>', acceptLanguage: 'sw' })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: 'x'.repeat(5000) })).toBe('en');
  });

  it('formats with the locale and marks Arabic right to left', () => {
    expect(translatorFor('ar').dir).toBe('rtl');
    expect(translatorFor('de').dir).toBe('ltr');
    expect(translatorFor('de').t('common.language')).toBe('Sprache');
  });
});

describe('the language switcher (GET /locale)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it('sets dauth_locale and goes back, replacing the flow’s ui_locales', async () => {
    const returnTo = '/oauth/authorize?client_id=c&ui_locales=fr&state=s';
    const res = await fetch(`${server.url}/locale?locale=ar&return_to=${encodeURIComponent(returnTo)}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/oauth/authorize?client_id=c&ui_locales=ar&state=s');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^dauth_locale=ar;/);
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
  });

  it.each(['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'evil', '/a\r\nSet-Cookie: x=1'])(
    'refuses to go back to %j (no open redirector) and sets nothing',
    async (returnTo) => {
      const res = await fetch(`${server.url}/locale?locale=de&return_to=${encodeURIComponent(returnTo)}`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    },
  );

  it('refuses an unsupported locale', async () => {
    const res = await fetch(`${server.url}/locale?locale=xx&return_to=%2F`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});
