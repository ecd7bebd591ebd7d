import { compactVerify, type CryptoKey, errors as joseErrors } from 'jose';
import { AppError } from '../../errors.js';
import type { OAuthClient } from '../../stores/clientStore.js';
import { redirectWith } from '../oauth/authorizationRequest.js';
import type { BrowserSessionService } from '../oauth/browserSessions.js';
import type { ClientService } from '../oauth/clientService.js';
import type { LoginStatusService } from '../status/loginStatusService.js';
import { SIGNING_ALG } from '../tokens/tokenService.js';

/** The parameters of RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2). */
export interface EndSessionParams {
  id_token_hint?: string | undefined;
  client_id?: string | undefined;
  post_logout_redirect_uri?: string | undefined;
  state?: string | undefined;
}

/** A checked logout request: who asks (the app), for whom (the hint's user) and where to go after. */
export interface EndSessionRequest {
  client: OAuthClient | undefined;
  /** The `sub` of a valid `id_token_hint` at most 24 hours old; undefined without one. */
  hintUserId: string | undefined;
  /** `post_logout_redirect_uri` with `state`, when one was asked for (registered, exact match). */
  redirectTo: string | undefined;
}

/**
 * How old an `id_token_hint` may be and still sign the user out at once (decisions §8). An older one
 * still names the app (its signature holds) but no longer the user: the logout asks the user to
 * confirm, as without a hint, so a hint leaked long ago cannot sign anyone out.
 */
export const ID_TOKEN_HINT_MAX_AGE_MS = 24 * 3600_000;

const invalidParam = (field: string, message: string) =>
  new AppError(400, 'invalid_request', message, { field });

export interface PublicKeyLookup {
  publicKey(kid: string): CryptoKey | undefined;
}

/**
 * RP-initiated logout. A request carrying a valid `id_token_hint` signs out at once: it ends the
 * page's browser session when that session is the hint's user's, and sets the login status of that
 * user and app to `logged_out`. Without a hint anybody could send a browser here, so the route asks
 * the user to confirm first (`signOut` is then called for the session's own user).
 */
export class EndSessionService {
  constructor(
    private readonly deps: {
      keys: PublicKeyLookup;
      clients: ClientService;
      sessions: BrowserSessionService;
      loginStatus: LoginStatusService;
      issuer: string;
      now?: () => number;
    },
  ) {}

  /** Validates the request; 400 `invalid_request` (naming the field) for a bad hint, app or URI. */
  async check(params: EndSessionParams): Promise<EndSessionRequest> {
    let hint: { sub: string; aud: string; iat: number | undefined } | undefined;
    if (params.id_token_hint !== undefined) hint = await this.#verifyHint(params.id_token_hint);
    if (hint && params.client_id !== undefined && params.client_id !== hint.aud) {
      throw invalidParam('client_id', 'client_id is not the audience of id_token_hint');
    }
    const clientId = hint?.aud ?? params.client_id;
    const client = clientId === undefined ? undefined : await this.deps.clients.findClient(clientId);
    if (clientId !== undefined && !client) throw invalidParam('client_id', 'Unknown client_id');
    let redirectTo: string | undefined;
    if (params.post_logout_redirect_uri !== undefined) {
      if (!client) {
        throw invalidParam(
          'post_logout_redirect_uri',
          'post_logout_redirect_uri needs id_token_hint or client_id to name the app',
        );
      }
      if (!this.deps.clients.isRegisteredPostLogoutRedirect(client, params.post_logout_redirect_uri)) {
        throw invalidParam(
          'post_logout_redirect_uri',
          'post_logout_redirect_uri is not registered for this app (exact match)',
        );
      }
      redirectTo = redirectWith(params.post_logout_redirect_uri, { state: params.state });
    }
    const now = (this.deps.now ?? Date.now)();
    const fresh = hint?.iat !== undefined && now - hint.iat * 1000 <= ID_TOKEN_HINT_MAX_AGE_MS;
    return { client, hintUserId: fresh ? hint?.sub : undefined, redirectTo };
  }

  /**
   * Signs out. The browser session ends when it belongs to `userId` (or when no user is named:
   * the confirmed, hint-less case); another user's session in the same browser is left alone.
   * Returns whether the session ended (the route then clears the cookie).
   */
  async signOut(input: {
    request: EndSessionRequest;
    sessionCookie: string | undefined;
  }): Promise<{ sessionEnded: boolean; userId: string | undefined }> {
    const session = await this.deps.sessions.sessionOf(input.sessionCookie);
    const userId = input.request.hintUserId ?? (session ? String(session.userUuid) : undefined);
    const sessionEnded = session !== undefined && String(session.userUuid) === userId;
    if (sessionEnded) await this.deps.sessions.endSession(input.sessionCookie);
    if (userId !== undefined && input.request.client) {
      await this.deps.loginStatus.setStatus(userId, input.request.client.clientId, 'logged_out');
    }
    return { sessionEnded, userId };
  }

  /**
   * An ID token this service issued: ES256 under one of its keys, its issuer, a `sub` and an `aud`,
   * and none of the `token_use` marks of login and access tokens. An expired hint is accepted, as the
   * logout specification recommends (the RP often holds nothing fresher); `check` acts on its user
   * only while it is at most `ID_TOKEN_HINT_MAX_AGE_MS` old.
   */
  async #verifyHint(token: string): Promise<{ sub: string; aud: string; iat: number | undefined }> {
    const invalid = () =>
      invalidParam('id_token_hint', 'id_token_hint is not an ID token issued by this service');
    let payload: Record<string, unknown>;
    try {
      const verified = await compactVerify(
        token,
        (header) => {
          const key = header.kid ? this.deps.keys.publicKey(header.kid) : undefined;
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          return key;
        },
        { algorithms: [SIGNING_ALG] },
      );
      payload = JSON.parse(Buffer.from(verified.payload).toString('utf8')) as Record<string, unknown>;
    } catch {
      throw invalid();
    }
    const aud = Array.isArray(payload.aud) && payload.aud.length === 1 ? payload.aud[0] : payload.aud;
    if (
      payload.iss !== this.deps.issuer ||
      typeof payload.sub !== 'string' ||
      typeof aud !== 'string' ||
      payload.token_use !== undefined
    ) {
      throw invalid();
    }
    return { sub: payload.sub, aud, iat: typeof payload.iat === 'number' ? payload.iat : undefined };
  }
}
