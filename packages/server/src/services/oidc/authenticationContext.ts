/**
 * `acr` and `amr` (OIDC Core §2, RFC 8176; docs/oidc.md "acr and amr"). dauth knows one authentication
 * context class, `mfa`: two factors were proved (a password or federated sign-in then a TOTP or recovery
 * code, a first TOTP confirmed on the page, or a user-verified passkey). A sign-in of one factor has no
 * `acr` at all rather than a value no app asked for.
 */
export const ACR_MFA = 'mfa';
export const ACR_VALUES_SUPPORTED = [ACR_MFA] as const;

/** Whether a sign-in's `amr` is two factors. */
export const isMultiFactor = (amr: readonly string[] | undefined): boolean =>
  amr !== undefined && amr.includes('mfa');

/** The `acr` of a sign-in, or undefined when it was one factor (or said nothing of how). */
export const acrOf = (amr: readonly string[] | undefined): string | undefined =>
  isMultiFactor(amr) ? ACR_MFA : undefined;

/**
 * Whether `acr_values` asks for two factors. `acr_values` is a voluntary claim (OIDC Core §3.1.2.1): any
 * other value is ignored, and the `id_token` says which class was met.
 */
export const asksForMfa = (acrValues: string | undefined): boolean =>
  (acrValues ?? '').split(' ').includes(ACR_MFA);

/** The `amr` and `acr` claims of a sign-in (none when it said nothing of how). */
export function authenticationClaims(amr: readonly string[] | undefined): { amr?: string[]; acr?: string } {
  if (!amr || amr.length === 0) return {};
  const acr = acrOf(amr);
  return { amr: [...amr], ...(acr !== undefined ? { acr } : {}) };
}
