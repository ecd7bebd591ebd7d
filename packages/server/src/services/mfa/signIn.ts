import type { TokenService } from '../tokens/tokenService.js';

/**
 * RFC 8176 authentication method references a login JWT carries (`amr`, docs/mfa.md): `pwd` a password,
 * `fed` a federated sign-in (an upstream provider), `hwk` a passkey (a hardware- or platform-held key) with
 * `user` (user presence), `swk` a guest's device secret (a software-held key), `otp` a TOTP or recovery code,
 * and `mfa` once two factors were proved.
 */
export type Amr = 'pwd' | 'fed' | 'hwk' | 'user' | 'swk' | 'otp' | 'mfa';

/** What the first step of a sign-in proved: who, when (Unix seconds), how, and for which app. */
export interface FirstFactor {
  userUuid: number;
  authTime: number;
  amr: readonly Amr[];
  /** The app the login JWT is to be bound to (`azp`), already checked to exist; unbound when absent. */
  clientId?: string | undefined;
}

/** The second factors `POST /v1/dev-user/login/mfa` accepts. */
export type MfaMethod = 'totp' | 'recovery_code';

/** A sign-in's answer: the login JWT, or (an account with a second factor) the token of its second step. */
export type SignIn =
  | { mfaRequired: false; token: string; uuid: string; expiresIn: number }
  | { mfaRequired: true; mfaToken: string; methods: MfaMethod[]; expiresIn: number };

/** Where every sign-in of a credential that is not two factors by itself (password, federated) ends. */
export interface SecondFactorGate {
  signIn(first: FirstFactor): Promise<SignIn>;
}

/** Issues the login JWT of a first step as it is (an account without a second factor). */
export async function issueSignIn(tokens: TokenService, first: FirstFactor): Promise<SignIn> {
  const uuid = String(first.userUuid);
  const { token, expiresIn } = await tokens.issueLoginToken(uuid, {
    authTime: first.authTime,
    amr: first.amr,
    ...(first.clientId !== undefined ? { clientId: first.clientId } : {}),
  });
  return { mfaRequired: false, token, uuid, expiresIn };
}

/** No second factor anywhere (the offline CLI's composition, before MFA is wired): the JWT at once. */
export const singleFactor = (tokens: TokenService): SecondFactorGate => ({
  signIn: (first) => issueSignIn(tokens, first),
});
