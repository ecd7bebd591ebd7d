import { expect } from 'vitest';
import type { TestUser } from '../helpers/http.js';

const unescapeHtml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The hidden fields of the page's form (the authorization request and the CSRF token). */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    fields[m[1]!] = unescapeHtml(m[2]!);
  }
  return fields;
}

/**
 * A browser reduced to what the login-and-consent page needs, over real HTTP: a cookie jar, GETs and
 * form posts without following redirects, so each step's answer can be checked.
 */
export class PageBrowser {
  readonly #cookies = new Map<string, string>();

  /** `userAgent`: sent with every request (else fetch's own). */
  constructor(
    private readonly baseUrl: string,
    private readonly userAgent?: string,
  ) {}

  async #send(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(url, this.baseUrl), {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        ...(cookie ? { cookie } : {}),
        ...(this.userAgent ? { 'user-agent': this.userAgent } : {}),
      },
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const eq = pair!.indexOf('=');
      this.#cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  }

  get(url: string): Promise<Response> {
    return this.#send(url);
  }

  postForm(path: string, fields: Record<string, string>): Promise<Response> {
    return this.#send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Opens an authorize URL without a session and signs in on its form; answers the page that follows. */
  async signIn(authorizeUrl: string, user: TestUser): Promise<Response> {
    const page = await this.get(authorizeUrl);
    expect(page.status).toBe(200);
    const form = hiddenFields(await page.text());
    const signedIn = await this.postForm('/oauth/authorize/login', {
      ...form,
      email: user.email,
      password: user.password,
    });
    expect(signedIn.status).toBe(303);
    return this.get(signedIn.headers.get('location')!);
  }

  /** Allows on a consent page's HTML; answers the redirect to the app's URL. */
  async allow(consentHtml: string): Promise<URL> {
    const res = await this.postForm('/oauth/authorize/consent', {
      ...hiddenFields(consentHtml),
      decision: 'allow',
    });
    expect(res.status).toBe(303);
    return new URL(res.headers.get('location')!);
  }
}
