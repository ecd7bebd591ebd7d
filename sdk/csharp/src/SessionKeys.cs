using System.Collections.Generic;
using System.Numerics;

namespace Dauth
{
    /// <summary>An upstream identity (Google, Apple, Discord, Steam, ...) linked to the player's account.</summary>
    public sealed class LinkedIdentity
    {
        public string Id { get; internal set; }
        /// <summary>The provider's id in the service's IDENTITY_PROVIDERS, e.g. "google".</summary>
        public string Provider { get; internal set; }
        /// <summary>Its display name, e.g. "Google".</summary>
        public string ProviderName { get; internal set; }
        /// <summary>The upstream subject (a Steam id for steam).</summary>
        public string Subject { get; internal set; }
        /// <summary>The upstream e-mail, or null when it sent none.</summary>
        public string Email { get; internal set; }
        /// <summary>ISO 8601 UTC.</summary>
        public string CreatedAt { get; internal set; }
    }

    /// <summary>
    /// What an app may do from the player's wallet without the PIN (docs/session-keys.md): the contracts and
    /// function selectors it may call, native-value caps per call and per day, per-day caps of listed
    /// ERC-20 tokens, and how long a grant lasts. The wallet contract enforces it.
    /// </summary>
    public sealed class WalletPolicy
    {
        public IReadOnlyList<PolicyCall> Calls { get; internal set; }
        public BigInteger MaxValuePerCallWei { get; internal set; }
        public BigInteger MaxValuePerDayWei { get; internal set; }
        /// <summary>Per-day caps of ERC-20 transfer/approve amounts, in the token's base units.</summary>
        public IReadOnlyList<TokenAmount> TokenLimitsPerDay { get; internal set; }
        public long ValidForSeconds { get; internal set; }
    }

    /// <summary>A contract the app may call and the 4-byte selectors (0x…) it may call there.</summary>
    public sealed class PolicyCall
    {
        public string To { get; internal set; }
        public IReadOnlyList<string> Selectors { get; internal set; }
    }

    /// <summary>An ERC-20 token and an amount of it in base units (a per-day cap, or what was spent today).</summary>
    public sealed class TokenAmount
    {
        public string Token { get; internal set; }
        public BigInteger Amount { get; internal set; }
    }

    /// <summary>
    /// An app's session key on the player's wallet: granted with the PIN (<see cref="DauthClient.GrantSessionKeyAsync"/>),
    /// listed with what it spent today (<see cref="DauthClient.GetSessionKeysAsync"/>), revoked without the PIN.
    /// </summary>
    public sealed class SessionKeyGrant
    {
        public string ClientId { get; internal set; }
        /// <summary>The app's name (in the list; null in the grant's answer).</summary>
        public string ClientName { get; internal set; }
        /// <summary>The session key's address; its private key never leaves dauth.</summary>
        public string SessionKey { get; internal set; }
        /// <summary>ISO 8601 UTC: the key stops working then.</summary>
        public string ValidUntil { get; internal set; }
        public WalletPolicy Policy { get; internal set; }
        /// <summary>Native value spent today under this key, in wei (in the list; null in the grant's answer).</summary>
        public BigInteger? SpentTodayWei { get; internal set; }
        /// <summary>Tokens spent today under this key (in the list; empty in the grant's answer).</summary>
        public IReadOnlyList<TokenAmount> SpentTodayTokens { get; internal set; }
        /// <summary>ISO 8601 UTC (in the list).</summary>
        public string CreatedAt { get; internal set; }
        /// <summary>The registration's user operation (in the grant's answer).</summary>
        public string UserOpHash { get; internal set; }
        /// <summary>The registration's transaction, or null while it is not known.</summary>
        public string TxHash { get; internal set; }
    }
}
