using System.Collections.Generic;
using System.Numerics;

namespace Dauth
{
    /// <summary>A signed-in player: the login JWT (bound to the game's client_id) and the user's uuid.</summary>
    public sealed class PlayerSession
    {
        public PlayerSession(string token, string uuid) { Token = token; Uuid = uuid; }
        /// <summary>The login JWT. Send it to your game backend, which turns it into the player's slot.</summary>
        public string Token { get; private set; }
        /// <summary>The user's uuid (decimal digits).</summary>
        public string Uuid { get; private set; }
        public override string ToString() { return "PlayerSession(uuid " + Uuid + ")"; }
    }

    /// <summary>A new guest: its session and the secret the game keeps on the device to sign in again.</summary>
    public sealed class GuestAccount
    {
        public GuestAccount(PlayerSession session, string guestSecret) { Session = session; GuestSecret = guestSecret; }
        public PlayerSession Session { get; private set; }
        public string GuestSecret { get; private set; }
        public override string ToString() { return "GuestAccount(uuid " + Session.Uuid + ")"; }
    }

    /// <summary>The answer of a native sign-in with an upstream id_token.</summary>
    public sealed class FederatedLogin
    {
        public FederatedLogin(PlayerSession session, bool created) { Session = session; Created = created; }
        public PlayerSession Session { get; private set; }
        /// <summary>True when this sign-in created the account.</summary>
        public bool Created { get; private set; }
    }

    /// <summary>
    /// Apple Game Center's identity-verification signature, as
    /// <c>GKLocalPlayer.local.fetchItems(forIdentityVerificationSignature:)</c> gives it to the game.
    /// </summary>
    public sealed class GameCenterSignature
    {
        /// <summary>The certificate's URL (https on apple.com).</summary>
        public string PublicKeyUrl { get; set; }
        public byte[] Signature { get; set; }
        public byte[] Salt { get; set; }
        /// <summary>Milliseconds since the Unix epoch, as Game Center gives it.</summary>
        public ulong Timestamp { get; set; }
        public string TeamPlayerId { get; set; }
        public string BundleId { get; set; }
    }

    /// <summary>RFC 8628 device authorization: show <see cref="UserCode"/> and <see cref="VerificationUri"/> to the player.</summary>
    public sealed class DeviceAuthorization
    {
        // Settable: a game may keep it across a suspend and resume the wait later.
        public string DeviceCode { get; set; }
        public string UserCode { get; set; }
        public string VerificationUri { get; set; }
        /// <summary>The URI with the code filled in (for a QR code), or null.</summary>
        public string VerificationUriComplete { get; set; }
        public int ExpiresIn { get; set; }
        /// <summary>Seconds between polls (5 when the service names none).</summary>
        public int Interval { get; set; }
    }

    /// <summary>The tokens of a successful device grant.</summary>
    public sealed class OAuthTokens
    {
        public string AccessToken { get; internal set; }
        public string TokenType { get; internal set; }
        public int? ExpiresIn { get; internal set; }
        public string RefreshToken { get; internal set; }
        public string IdToken { get; internal set; }
        public string Scope { get; internal set; }
        /// <summary>The player's uuid, when the service sends it.</summary>
        public string UserId { get; internal set; }
    }

    /// <summary>One poll of the device grant: the tokens, or still pending (and whether to slow down).</summary>
    public sealed class DevicePoll
    {
        internal DevicePoll(OAuthTokens tokens, bool slowDown) { Tokens = tokens; SlowDown = slowDown; }
        /// <summary>Null while the player has not approved yet.</summary>
        public OAuthTokens Tokens { get; private set; }
        /// <summary>The service asked for a longer interval (RFC 8628: add 5 seconds).</summary>
        public bool SlowDown { get; private set; }
    }

    /// <summary>The PIN wallet just created: its address, the mnemonic readable with the PIN, and the credentials.</summary>
    public sealed class PinRegistration
    {
        public string Address { get; internal set; }
        /// <summary>hex(iv ‖ AES-256-CTR(...)): <see cref="PinCrypto.DecryptMnemonic"/> with the pin_hash shows the 12 words.</summary>
        public string MnemonicEncrypted { get; internal set; }
        /// <summary>Keep pin_salt and key_share_user on the device; the PIN recreates pin_hash.</summary>
        public PinCredentials Credentials { get; internal set; }
    }

    /// <summary>One call for the main wallet to make (PIN verify with calls): target, wei value and call data.</summary>
    public sealed class WalletCall
    {
        public WalletCall(string to, BigInteger value, string data) { To = to; Value = value; Data = data ?? "0x"; }
        public string To { get; private set; }
        public BigInteger Value { get; private set; }
        public string Data { get; private set; }
    }

    /// <summary>The answer of PIN verify: the wallet (a proof only) or the submitted operation's hashes.</summary>
    public sealed class PinVerification
    {
        public string Address { get; internal set; }
        public string UserOpHash { get; internal set; }
        public string TxHash { get; internal set; }
    }

    /// <summary>The player's main wallet: null address before a PIN is set; balances in wei and token base units.</summary>
    public sealed class WalletInfo
    {
        public string Address { get; internal set; }
        public BigInteger? NativeBalance { get; internal set; }
        public BigInteger? TokenBalance { get; internal set; }
    }

    /// <summary>A content-token balance of one cuid on a slot.</summary>
    public class ContentBalance
    {
        public string Cuid { get; internal set; }
        public BigInteger Balance { get; internal set; }
        /// <summary>Cumulative consumption (permanent and public).</summary>
        public BigInteger Used { get; internal set; }
    }

    /// <summary>One of the player's slots, with each of its app's cuids' balances.</summary>
    public sealed class PlayerSlot
    {
        public SlotId SlotId { get; internal set; }
        public string ClientId { get; internal set; }
        public string AppName { get; internal set; }
        public string ContentAddress { get; internal set; }
        public IReadOnlyList<ContentBalance> Balances { get; internal set; }
    }

    /// <summary>The public balance query of a slot address for a cuid: the same balance and use, and the address asked about.</summary>
    public sealed class SlotBalance : ContentBalance
    {
        public string Slot { get; internal set; }
    }

    /// <summary>A content purchase: what was paid (wei) and what the slot received (content-token base units).</summary>
    public sealed class ContentPurchase
    {
        public string TxHash { get; internal set; }
        public BigInteger TokenAmount { get; internal set; }
        public BigInteger NativePaid { get; internal set; }
        public BigInteger PlatformFee { get; internal set; }
        public BigInteger ProviderReceived { get; internal set; }
    }

    /// <summary>An ERC-20 transfer from one of the player's wallets.</summary>
    public sealed class TokenTransfer
    {
        public string TransactionHash { get; internal set; }
        public string UserOpHash { get; internal set; }
        public string FromAddress { get; internal set; }
        public string ToAddress { get; internal set; }
        public BigInteger Amount { get; internal set; }
        public string ContractAddress { get; internal set; }
    }

    /// <summary>A login status of the player's rights in one app.</summary>
    public sealed class LoginStatus
    {
        public string UserId { get; internal set; }
        /// <summary>"logged_in" or "logged_out".</summary>
        public string Status { get; internal set; }
        /// <summary>True only when logged out: the rights may then be listed on the marketplace.</summary>
        public bool TransferEnabled { get; internal set; }
        public string Timestamp { get; internal set; }
    }
}
