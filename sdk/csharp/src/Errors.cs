using System;
using System.Collections.Generic;

namespace Dauth
{
    /// <summary>
    /// The service's error codes the player's calls can meet (docs/errors.md lists every code). A
    /// <see cref="DauthException"/> carries the code as sent, also for codes not listed here.
    /// </summary>
    public static class ErrorCodes
    {
        public const string InvalidCredentials = "invalid_credentials";
        public const string InvalidToken = "invalid_token";
        public const string ExpiredToken = "expired_token";
        public const string MissingToken = "missing_token";
        public const string EmailTaken = "email_taken";
        public const string WeakPassword = "weak_password";
        public const string InvalidRequest = "invalid_request";
        public const string InvalidPin = "invalid_pin";
        public const string PinLocked = "pin_locked";
        public const string PinRequired = "pin_required";
        public const string WalletExists = "wallet_exists";
        public const string WalletNotFound = "wallet_not_found";
        public const string NotYourWallet = "not_your_wallet";
        public const string InsufficientFunds = "insufficient_funds";
        public const string InsufficientBalance = "insufficient_balance";
        public const string ClientMismatch = "client_mismatch";
        public const string UserMismatch = "user_mismatch";
        public const string RateLimited = "rate_limited";
        public const string TooManyAttempts = "too_many_attempts";
        public const string SponsorshipQuotaExceeded = "sponsorship_quota_exceeded";
        public const string Overloaded = "overloaded";
        public const string ChainUnavailable = "chain_unavailable";
        public const string AccountExistsLinkRequired = "account_exists_link_required";
        public const string InvalidIdToken = "invalid_id_token";
        public const string IdentityInUse = "identity_in_use";
        public const string LastSignInMethod = "last_sign_in_method";
        public const string FirstPartyRequired = "first_party_required";
        public const string IdTokenReplayed = "id_token_replayed";
        public const string PlatformRejected = "platform_rejected";
        public const string PlatformBanned = "platform_banned";
        public const string PlatformUnsupported = "platform_unsupported";
        public const string UnknownProvider = "unknown_provider";
        public const string IdTokenUnsupported = "id_token_unsupported";
        public const string ProviderUnavailable = "provider_unavailable";
        public const string SessionKeyNotFound = "session_key_not_found";
        /// <summary>Set by the SDK on <see cref="MfaRequiredException"/>: the sign-in needs a second step.</summary>
        public const string MfaRequired = "mfa_required";
        public const string InvalidMfaCode = "invalid_mfa_code";
        public const string InvalidMfaToken = "invalid_mfa_token";
        // RFC 8628 device grant answers (at /oauth/token).
        public const string AuthorizationPending = "authorization_pending";
        public const string SlowDown = "slow_down";
        public const string AccessDenied = "access_denied";
        /// <summary>Set by the SDK when no answer came: the connection failed or was cut.</summary>
        public const string ConnectionFailed = "connection_failed";
        /// <summary>Set by the SDK when the transport's timeout passed without an answer.</summary>
        public const string Timeout = "timeout";
        /// <summary>Set by the SDK when an answer is not the JSON it should be.</summary>
        public const string MalformedResponse = "malformed_response";
    }

    /// <summary>
    /// A non-2xx answer of dauth (decisions §2: <c>{success: false, error, message}</c>, or RFC 6749's
    /// <c>{error, error_description}</c> on /oauth/*), or an answer the SDK could not read. Catch the
    /// subclasses for the common cases; <see cref="Code"/> is the service's stable snake_case code.
    /// </summary>
    public class DauthException : Exception
    {
        public DauthException(string code, int status, string message, string field = null, int? retryAfterSeconds = null,
            Exception inner = null)
            : base(message ?? code, inner)
        {
            Code = code;
            Status = status;
            Field = field;
            RetryAfterSeconds = retryAfterSeconds;
        }

        /// <summary>The service's <c>error</c> code, e.g. "invalid_pin".</summary>
        public string Code { get; private set; }
        /// <summary>The HTTP status (0 when the answer never arrived in a usable form).</summary>
        public int Status { get; private set; }
        /// <summary>For a 400: the request field the service named, when it did.</summary>
        public string Field { get; private set; }
        /// <summary>For 429 and some 503 answers: the seconds the service asked to wait.</summary>
        public int? RetryAfterSeconds { get; private set; }

        /// <summary>The typed exception for a code and status: the code decides first, then the status.</summary>
        public static DauthException Create(string code, int status, string message, string field, int? retryAfter)
        {
            switch (code)
            {
                case ErrorCodes.InvalidCredentials: return new InvalidCredentialsException(code, status, message);
                case ErrorCodes.ExpiredToken:
                case ErrorCodes.InvalidToken:
                case ErrorCodes.MissingToken:
                    return new TokenRejectedException(code, status, message);
                case ErrorCodes.InvalidPin: return new InvalidPinException(code, status, message);
                case ErrorCodes.PinLocked: return new PinLockedException(code, status, message, retryAfter);
                case ErrorCodes.PinRequired: return new PinRequiredException(code, status, message);
                case ErrorCodes.AccessDenied: return new DeviceAccessDeniedException(code, status, message);
                case ErrorCodes.AccountExistsLinkRequired: return new AccountLinkRequiredException(code, status, message);
                case ErrorCodes.InvalidIdToken: return new InvalidIdTokenException(code, status, message);
                case ErrorCodes.LastSignInMethod: return new LastSignInMethodException(code, status, message);
                case ErrorCodes.FirstPartyRequired: return new FirstPartyRequiredException(code, status, message);
                case ErrorCodes.IdTokenReplayed: return new IdTokenReplayedException(code, status, message);
                case ErrorCodes.PlatformRejected: return new PlatformRejectedException(code, status, message);
                case ErrorCodes.PlatformBanned: return new PlatformBannedException(code, status, message);
                case ErrorCodes.InvalidMfaCode: return new InvalidMfaCodeException(code, status, message);
                case ErrorCodes.InvalidMfaToken: return new InvalidMfaTokenException(code, status, message);
            }
            if (status == 429) return new RateLimitedException(code, status, message, retryAfter);
            if (status == 400 || status == 413 || status == 415 || status == 422) return new InvalidRequestException(code, status, message, field);
            if (status == 401) return new AuthenticationException(code, status, message);
            if (status == 403) return new ForbiddenException(code, status, message);
            if (status == 404) return new NotFoundException(code, status, message);
            if (status == 409 || status == 423) return new ConflictException(code, status, message);
            if (status >= 500) return new ServiceUnavailableException(code, status, message, retryAfter);
            return new DauthException(code, status, message, field, retryAfter);
        }
    }

    /// <summary>400 (and 413, 415, 422): the request was refused as it stands; <see cref="DauthException.Field"/> names the field.</summary>
    public class InvalidRequestException : DauthException
    {
        public InvalidRequestException(string code, int status, string message, string field) : base(code, status, message, field) { }
    }

    /// <summary>401: not signed in, or not with these credentials.</summary>
    public class AuthenticationException : DauthException
    {
        public AuthenticationException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>401 invalid_credentials: wrong e-mail or password (or guest secret).</summary>
    public sealed class InvalidCredentialsException : AuthenticationException
    {
        public InvalidCredentialsException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>401 invalid_token, expired_token or missing_token: sign in again for a fresh token.</summary>
    public sealed class TokenRejectedException : AuthenticationException
    {
        public TokenRejectedException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>401 invalid_pin: the PIN does not open this wallet (5 in a row lock it).</summary>
    public sealed class InvalidPinException : AuthenticationException
    {
        public InvalidPinException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>401 pin_required: the operation needs pin_hash, pin_salt and key_share_user.</summary>
    public sealed class PinRequiredException : AuthenticationException
    {
        public PinRequiredException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>423 pin_locked: too many wrong PINs; the lock lasts 15 minutes, doubling.</summary>
    public sealed class PinLockedException : DauthException
    {
        public PinLockedException(string code, int status, string message, int? retryAfter) : base(code, status, message, null, retryAfter) { }
    }

    /// <summary>403: signed in, but this is not yours (another user's wallet, another client's token).</summary>
    public class ForbiddenException : DauthException
    {
        public ForbiddenException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>
    /// 403 first_party_required: a change to the account's ways in (link, unlink; decisions §9) takes only a
    /// fresh login JWT of the dauth console, never the app-bound one a game holds (a guest's own may still
    /// link its first identity). Send the player to the dauth console to do it there.
    /// </summary>
    public sealed class FirstPartyRequiredException : ForbiddenException
    {
        public FirstPartyRequiredException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>RFC 8628 access_denied: the player refused the device on the verification page.</summary>
    public sealed class DeviceAccessDeniedException : ForbiddenException
    {
        public DeviceAccessDeniedException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>404: no such slot, wallet, provider or cuid.</summary>
    public class NotFoundException : DauthException
    {
        public NotFoundException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>409 or 423: the state does not allow it (e-mail taken, wallet exists, not enough funds, ...).</summary>
    public class ConflictException : DauthException
    {
        public ConflictException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>409 account_exists_link_required: sign in to that account and link the identity there.</summary>
    public sealed class AccountLinkRequiredException : ConflictException
    {
        public AccountLinkRequiredException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>401 invalid_id_token: the upstream id_token is not valid for that provider (signature, iss, aud, expiry).</summary>
    public sealed class InvalidIdTokenException : AuthenticationException
    {
        public InvalidIdTokenException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>
    /// 401 id_token_replayed: the service accepts an upstream id_token once. Get a new one from the
    /// platform's SDK; retrying the same one is refused again.
    /// </summary>
    public sealed class IdTokenReplayedException : AuthenticationException
    {
        public IdTokenReplayedException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>
    /// 401 platform_rejected: the platform refused the credential of a platform sign-in (a Steam ticket for
    /// another app or identity, an expired EOS token, a stale or replayed Game Center signature, a used Play
    /// Games code). Get a new credential from the platform's SDK; never retry the same one.
    /// </summary>
    public sealed class PlatformRejectedException : AuthenticationException
    {
        public PlatformRejectedException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>403 platform_banned: the platform bans this account (Steam publisher ban, or VAC ban).</summary>
    public sealed class PlatformBannedException : ForbiddenException
    {
        public PlatformBannedException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>
    /// A sign-in whose first credential (password, upstream id_token) was right, for an account with a
    /// second factor (docs/mfa.md): there is no session yet. Ask the player for their authenticator app's
    /// current code (or a recovery code) and call <see cref="DauthClient.LoginMfaAsync"/> with
    /// <see cref="MfaToken"/> within <see cref="ExpiresInSeconds"/>. Neither the message nor ToString
    /// contains the token.
    /// </summary>
    public sealed class MfaRequiredException : DauthException
    {
        public MfaRequiredException(string mfaToken, IReadOnlyList<string> methods, int? expiresInSeconds, bool? created)
            : base(ErrorCodes.MfaRequired, 200, "mfa_required: the account has a second factor; send a code with LoginMfaAsync")
        {
            MfaToken = mfaToken;
            Methods = methods;
            ExpiresInSeconds = expiresInSeconds;
            Created = created;
        }

        /// <summary>The second step's mfa_token: single use, 5 codes at most.</summary>
        public string MfaToken { get; private set; }
        /// <summary>The codes the second step accepts: "totp", "recovery_code".</summary>
        public IReadOnlyList<string> Methods { get; private set; }
        /// <summary>Seconds the token lives (5 minutes), when the service said.</summary>
        public int? ExpiresInSeconds { get; private set; }
        /// <summary>A federated sign-in's "created" (this sign-in made the account); null for a password sign-in.</summary>
        public bool? Created { get; private set; }
    }

    /// <summary>401 invalid_mfa_code: the code is wrong or already used. Ask again: an mfa_token takes 5 codes.</summary>
    public sealed class InvalidMfaCodeException : AuthenticationException
    {
        public InvalidMfaCodeException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>401 invalid_mfa_token: the mfa_token is unknown, expired, used, or ended after 5 codes. Sign in again.</summary>
    public sealed class InvalidMfaTokenException : AuthenticationException
    {
        public InvalidMfaTokenException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>409 last_sign_in_method: removing this identity (or passkey) would leave the account no way in.</summary>
    public sealed class LastSignInMethodException : ConflictException
    {
        public LastSignInMethodException(string code, int status, string message) : base(code, status, message) { }
    }

    /// <summary>429: slow down; retry after <see cref="DauthException.RetryAfterSeconds"/>.</summary>
    public sealed class RateLimitedException : DauthException
    {
        public RateLimitedException(string code, int status, string message, int? retryAfter) : base(code, status, message, null, retryAfter) { }
    }

    /// <summary>5xx: the service, its database or its chain is not available right now; retry later.</summary>
    public sealed class ServiceUnavailableException : DauthException
    {
        public ServiceUnavailableException(string code, int status, string message, int? retryAfter) : base(code, status, message, null, retryAfter) { }
    }

    /// <summary>The answer was not the JSON the call expects (a proxy's HTML page, a missing field).</summary>
    public sealed class MalformedResponseException : DauthException
    {
        public MalformedResponseException(int status, string message) : base(ErrorCodes.MalformedResponse, status, message) { }
    }

    /// <summary>
    /// No answer came (Status 0): the connection failed or was cut (<c>connection_failed</c>), or the
    /// transport's timeout passed (<c>timeout</c>). Safe to retry a read; a purchase or transfer may
    /// have happened: check the balance before trying again.
    /// </summary>
    public sealed class DauthConnectionException : DauthException
    {
        public DauthConnectionException(string code, string message, Exception inner) : base(code, 0, message, null, null, inner) { }
    }

    /// <summary>The device code expired before the player approved it (RFC 8628 expired_token).</summary>
    public sealed class DeviceCodeExpiredException : DauthException
    {
        public DeviceCodeExpiredException(int status, string message) : base(ErrorCodes.ExpiredToken, status, message) { }
    }
}
