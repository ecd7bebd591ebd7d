import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for the service's federation and session-key routes (decisions §8), written to
 * the interface the SDK is built against and keeping state like the service does: identities keyed by
 * (provider, subject), an account per identity, the last way in never unlinked, a wallet policy checked
 * call by call. The live suites (test/e2e/federationAndSessions.test.ts) run the same calls against dauth.
 *
 * Upstream id_tokens here are opaque strings the test registers with `issueIdToken`; any other is
 * refused 401 `invalid_id_token`, as a token with a wrong signature, `aud` or `exp` is by the service.
 * An accepted id_token is spent: presented again it is 401 `id_token_replayed` (decisions §9).
 *
 * Login JWTs are `jwt.<uuid>` when bound to the app (what federated-login and a guest sign-in give a
 * game) and `console.<uuid>` when bound to `dauth:console` and fresh. Linking and unlinking take only
 * the console's (403 `first_party_required`), except that a guest's own app-bound JWT may link while
 * the account is still a guest (its upgrade; decisions §9 "Ways in").
 *
 * An account given a second factor (`enableMfa`, docs/mfa.md) answers its password or federated sign-in
 * with `{mfa_required, mfa_token, methods}` and no token; `POST /v1/dev-user/login/mfa` takes the code
 * (each once), refuses a wrong one 401 `invalid_mfa_code`, and ends the token after 5 codes or its use
 * (401 `invalid_mfa_token`).
 */
export interface RecordedCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

interface Identity {
  id: string;
  provider: string;
  subject: string;
  email: string | null;
  uuid: string;
}

export interface SessionPolicy {
  /** The access token the app's backend holds for the player. */
  accessToken: string;
  allowedTargets: string[];
  maxValuePerCallWei: bigint;
  /** Where the service's error handler puts the details: nested (`details: {…}`) or spread. */
  detailsStyle?: 'nested' | 'spread';
}

const PROVIDER_NAMES: Record<string, string> = { google: 'Google', apple: 'Apple', discord: 'Discord' };

export class FakePlayerRoutes {
  readonly calls: RecordedCall[] = [];
  readonly #server: Server;
  readonly #idTokens = new Map<string, { provider: string; subject: string; email: string | null }>();
  readonly #identities: Identity[] = [];
  /** uuid → whether the account has a password (another way in), and whether it is still a guest. */
  readonly #accounts = new Map<string, { email: string | null; password: boolean; guest?: boolean }>();
  readonly #spentIdTokens = new Set<string>();
  readonly #policies: SessionPolicy[] = [];
  /** uuid → the codes its second factor accepts (each once). */
  readonly #mfa = new Map<string, Set<string>>();
  /** mfa_token → the sign-in it completes and the codes tried. */
  readonly #mfaTokens = new Map<string, { uuid: string; tries: number }>();
  /** e-mail → password and uuid, for `login_devuser`. */
  readonly #passwords = new Map<string, { password: string; uuid: string }>();
  #counter = 0;
  url = '';

  private constructor() {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = new URL(request.url ?? '/', 'http://fake.invalid').pathname;
        const method = request.method ?? '';
        this.calls.push({ method, path, authorization: request.headers.authorization, body });
        const [status, answer] = this.#route(method, path, request.headers.authorization, body);
        response.writeHead(status, { 'content-type': 'application/json' }).end(answer);
      });
    });
  }

  static async start(): Promise<FakePlayerRoutes> {
    const fake = new FakePlayerRoutes();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** An upstream id_token the fake accepts for (provider, subject). */
  issueIdToken(provider: string, subject: string, email: string | null = null): string {
    const token = `idt.${provider}.${subject}.${++this.#counter}`;
    this.#idTokens.set(token, { provider, subject, email });
    return token;
  }

  /** An existing e-mail account (a password account), signed in at the console: its console JWT. */
  passwordAccount(email: string): string {
    const uuid = String(1_000_000_000_000_000_000n + BigInt(++this.#counter));
    this.#accounts.set(uuid, { email, password: true });
    return `console.${uuid}`;
  }

  /** An e-mail and password account that signs in at `login_devuser`: its uuid. */
  passwordLogin(email: string, password: string): string {
    const uuid = this.passwordAccount(email).slice('console.'.length);
    this.#passwords.set(email, { password, uuid });
    return uuid;
  }

  /** Turns a second factor on for `uuid`: its sign-ins take a second step with one of `codes`. */
  enableMfa(uuid: string, codes: string[]): void {
    this.#mfa.set(uuid, new Set(codes));
  }

  /** A sign-in's answer: the session, or the first step's for an account with a second factor. */
  #signIn(uuid: string, extra: Record<string, unknown> = {}): [number, string] {
    if (!this.#mfa.has(uuid)) return ok(200, { success: true, token: `jwt.${uuid}`, uuid, ...extra });
    const mfaToken = `mfa.${++this.#counter}`;
    this.#mfaTokens.set(mfaToken, { uuid, tries: 0 });
    return ok(200, {
      success: true,
      mfa_required: true,
      mfa_token: mfaToken,
      methods: ['totp', 'recovery_code'],
      expires_in: 300,
      ...extra,
    });
  }

  /** A guest account: its app-bound login JWT. */
  guestAccount(): string {
    const uuid = String(3_000_000_000_000_000_000n + BigInt(++this.#counter));
    this.#accounts.set(uuid, { email: null, password: false, guest: true });
    return `jwt.${uuid}`;
  }

  /** A fresh console sign-in (`dauth:console`) to the account `uuid`: its login JWT. */
  consoleLogin(uuid: string): string {
    return `console.${uuid}`;
  }

  grantSessionKey(policy: SessionPolicy): void {
    this.#policies.push(policy);
  }

  identityCount(): number {
    return this.#identities.length;
  }

  #route(method: string, path: string, authorization: string | undefined, raw: string): [number, string] {
    let body: Record<string, unknown> = {};
    try {
      body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      return error(400, 'invalid_request', 'the body is not JSON');
    }
    const bearer = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
    const firstParty = bearer?.startsWith('console.') === true;
    const uuid = bearer?.startsWith('jwt.') ? bearer.slice(4) : firstParty ? bearer!.slice(8) : undefined;
    const signedIn = uuid !== undefined && this.#accounts.has(uuid) ? uuid : undefined;

    if (method === 'POST' && path === '/v1/dev-user/federated-login') {
      const claims = this.#verify(body);
      if (typeof claims === 'string') return error(...parseError(claims));
      const known = this.#identities.find(
        (i) => i.provider === claims.provider && i.subject === claims.subject,
      );
      if (known) {
        this.#spentIdTokens.add(body.id_token as string);
        return this.#signIn(known.uuid, { created: false });
      }
      const taken = [...this.#accounts.values()].some((a) => a.email !== null && a.email === claims.email);
      if (taken)
        return error(
          409,
          'account_exists_link_required',
          'an account with this e-mail exists: sign in and link',
        );
      const created = String(2_000_000_000_000_000_000n + BigInt(++this.#counter));
      this.#accounts.set(created, { email: claims.email, password: false });
      this.#identities.push({ id: `idn_${this.#counter}`, ...claims, uuid: created });
      this.#spentIdTokens.add(body.id_token as string);
      return ok(200, { success: true, token: `jwt.${created}`, uuid: created, created: true });
    }
    if (method === 'POST' && path === '/v1/dev-user/login_devuser') {
      const account = this.#passwords.get(String(body.email));
      if (!account || account.password !== body.password) {
        return error(401, 'invalid_credentials', 'wrong e-mail or password');
      }
      return this.#signIn(account.uuid);
    }
    if (method === 'POST' && path === '/v1/dev-user/login/mfa') {
      const pending = this.#mfaTokens.get(String(body.mfa_token));
      if (!pending || pending.tries >= 5) return error(401, 'invalid_mfa_token', 'sign in again');
      pending.tries += 1;
      const codes = this.#mfa.get(pending.uuid)!;
      if (!codes.delete(String(body.code))) return error(401, 'invalid_mfa_code', 'wrong code');
      this.#mfaTokens.delete(String(body.mfa_token));
      return ok(200, { success: true, token: `jwt.${pending.uuid}`, uuid: pending.uuid });
    }
    if (path === '/v1/dev-user/identities' || path.startsWith('/v1/dev-user/identities/')) {
      if (!signedIn) return error(401, 'invalid_token', 'sign in first');
      if (method === 'GET') {
        const identities = this.#identities.filter((i) => i.uuid === signedIn).map(view);
        return ok(200, { identities });
      }
      const guestUpgrade = method === 'POST' && this.#accounts.get(signedIn)?.guest === true;
      if (!firstParty && !guestUpgrade) {
        return error(403, 'first_party_required', 'sign in to the dauth console to change the ways in');
      }
      if (method === 'POST' && path === '/v1/dev-user/identities') {
        const claims = this.#verify(body);
        if (typeof claims === 'string') return error(...parseError(claims));
        const other = this.#identities.find(
          (i) => i.provider === claims.provider && i.subject === claims.subject,
        );
        if (other) return error(409, 'identity_in_use', 'this identity is linked to an account');
        const identity = { id: `idn_${++this.#counter}`, ...claims, uuid: signedIn };
        this.#identities.push(identity);
        this.#spentIdTokens.add(body.id_token as string);
        this.#accounts.get(signedIn)!.guest = false;
        return ok(201, view(identity));
      }
      if (method === 'DELETE') {
        const id = decodeURIComponent(path.slice('/v1/dev-user/identities/'.length));
        const index = this.#identities.findIndex((i) => i.id === id && i.uuid === signedIn);
        if (index < 0) return error(404, 'identity_not_found', 'no such identity');
        const others = this.#identities.filter((i) => i.uuid === signedIn).length - 1;
        if (others === 0 && !this.#accounts.get(signedIn)?.password) {
          return error(409, 'last_sign_in_method', 'this is the last way to sign in to the account');
        }
        this.#identities.splice(index, 1);
        return ok(200, { success: true });
      }
    }
    if (method === 'POST' && path === '/v1/wallet/session-operations') {
      const policy = this.#policies.find((p) => p.accessToken === bearer);
      if (!policy) return error(404, 'session_key_not_found', 'no active session key for this app');
      const calls = body.calls;
      if (!Array.isArray(calls) || calls.length === 0)
        return error(400, 'invalid_request', 'calls', { field: 'calls' });
      for (const [index, call] of (calls as { to: unknown; value: unknown; data: unknown }[]).entries()) {
        if (typeof call.value !== 'string' || !/^\d+$/.test(call.value) || typeof call.data !== 'string') {
          return error(400, 'invalid_request', `calls[${index}] is malformed`, { field: `calls[${index}]` });
        }
        const reason = !policy.allowedTargets.includes(String(call.to).toLowerCase())
          ? 'call_not_allowed'
          : BigInt(call.value) > policy.maxValuePerCallWei
            ? 'value_per_call'
            : undefined;
        if (reason) {
          const details = { call_index: index, reason };
          return error(
            403,
            'outside_session_policy',
            `call ${index} is outside the session policy: ${reason}`,
            policy.detailsStyle === 'spread' ? details : { details },
          );
        }
      }
      const n = ++this.#counter;
      const results = (calls as { to: string }[]).map((call, i) => ({
        call_index: i,
        to: call.to,
        success: true,
      }));
      return ok(200, {
        user_op_hash: `0x${'a'.repeat(63)}${n % 10}`,
        tx_hash: `0x${'b'.repeat(64)}`,
        results,
      });
    }
    return error(404, 'not_found', 'no such route');
  }

  #verify(
    body: Record<string, unknown>,
  ): { provider: string; subject: string; email: string | null } | string {
    if (typeof body.provider !== 'string' || typeof body.id_token !== 'string') return '400 invalid_request';
    if (!['google', 'apple', 'discord', 'steam'].includes(body.provider)) return '404 unknown_provider';
    if (body.provider === 'steam') return '400 id_token_unsupported';
    const claims = this.#idTokens.get(body.id_token);
    if (!claims || claims.provider !== body.provider) return '401 invalid_id_token';
    if (this.#spentIdTokens.has(body.id_token)) return '401 id_token_replayed';
    return claims;
  }
}

function view(identity: Identity) {
  return {
    id: identity.id,
    provider: identity.provider,
    provider_name: PROVIDER_NAMES[identity.provider] ?? identity.provider,
    subject: identity.subject,
    email: identity.email,
    created_at: '2026-11-26T12:00:00.000Z',
  };
}

function parseError(text: string): [number, string, string] {
  const [status, code] = text.split(' ') as [string, string];
  return [Number(status), code, `refused: ${code}`];
}

function ok(status: number, body: unknown): [number, string] {
  return [status, JSON.stringify(body)];
}

function error(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): [number, string] {
  return [status, JSON.stringify({ success: false, error: code, message, ...extra })];
}
