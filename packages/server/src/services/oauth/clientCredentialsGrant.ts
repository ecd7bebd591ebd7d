import { AppError } from '../../errors.js';
import type { TokenService } from '../tokens/tokenService.js';

/** A client_credentials token as the token route answers it: no refresh token, no id_token, no user. */
export interface ClientTokens {
  accessToken: string;
  /** Seconds. */
  expiresIn: number;
  /** The granted scope (space-separated), absent when none was asked for and none is granted by default. */
  scope?: string;
}

/** RFC 6749 §3.3 scope-token characters: printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,100}$/;

export const invalidScope = (message: string) =>
  new AppError(400, 'invalid_scope', message, { field: 'scope' });

/** Splits a `scope` parameter into its distinct tokens; a malformed one → 400 `invalid_scope`. */
export function parseScope(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  const tokens = scope.split(' ').filter((t) => t.length > 0);
  if (tokens.length > 20) throw invalidScope('At most 20 scopes');
  for (const token of tokens) {
    if (!SCOPE_TOKEN.test(token))
      throw invalidScope(`Malformed scope ${JSON.stringify(token.slice(0, 100))}`);
  }
  return [...new Set(tokens)];
}

/**
 * `grant_type=client_credentials` (RFC 6749 §4.4) for an authenticated confidential client: an access
 * token whose subject is the client itself (`sub` = `client_id`), with the scopes asked for among
 * `allowed`; with no `scope` parameter every allowed scope is granted (§3.3's default). `allowed`
 * undefined: any well-formed scope outside `reserved` (an app's own API scopes, which only its resource
 * servers interpret). Never a refresh token nor an id_token: the client asks again (§4.4.3).
 */
export function grantClientCredentials(
  tokens: Pick<TokenService, 'issueClientToken'>,
  input: {
    clientId: string;
    scope: string | undefined;
    /** The scopes the client may hold (a service account's), or undefined for an app. */
    allowed?: readonly string[] | undefined;
    /** Scopes no app may ask for (the management scopes, a service account's alone). */
    reserved?: readonly string[];
  },
): ClientTokens {
  const asked = parseScope(input.scope);
  let granted: string[];
  if (input.allowed !== undefined) {
    const refused = asked.filter((s) => !input.allowed!.includes(s));
    if (refused.length > 0) throw invalidScope(`This client may not ask for ${refused.join(' ')}`);
    granted = asked.length > 0 ? asked : [...input.allowed];
  } else {
    const reserved = asked.filter((s) => input.reserved?.includes(s));
    if (reserved.length > 0) {
      throw invalidScope(
        `${reserved.join(' ')}: management scopes belong to an organization's service accounts`,
      );
    }
    granted = asked;
  }
  const scope = granted.length > 0 ? granted.join(' ') : undefined;
  const issued = tokens.issueClientToken({ clientId: input.clientId, ...(scope ? { scope } : {}) });
  return { accessToken: issued.token, expiresIn: issued.expiresIn, ...(scope ? { scope } : {}) };
}
