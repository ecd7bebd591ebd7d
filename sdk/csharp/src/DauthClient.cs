using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Net.Http;
using System.Numerics;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Dauth
{
    /// <summary>
    /// The player's side of dauth, for a game client: sign-up and login bound to the game's
    /// client_id, guests, native federated sign-in, the device flow, the PIN wallet, slots, content
    /// purchases, token transfers and the status updates. Public API only; no client secret here.
    /// Every call takes a <see cref="CancellationToken"/>; failures are <see cref="DauthException"/>s.
    /// </summary>
    public sealed class DauthClient
    {
        private readonly Uri baseUrl;
        private readonly IDauthTransport transport;

        /// <param name="baseUrl">dauth's public URL, e.g. https://auth.example.com</param>
        /// <param name="clientId">The game's client_id: logins are bound to it (decisions §8).</param>
        /// <param name="transport">How requests travel (default: <see cref="HttpClientTransport"/>).</param>
        public DauthClient(string baseUrl, string clientId, IDauthTransport transport = null)
        {
            if (string.IsNullOrEmpty(baseUrl)) throw new ArgumentException("baseUrl is required", "baseUrl");
            if (string.IsNullOrEmpty(clientId)) throw new ArgumentException("clientId is required", "clientId");
            var url = new Uri(baseUrl.EndsWith("/", StringComparison.Ordinal) ? baseUrl : baseUrl + "/", UriKind.Absolute);
            if (url.Scheme != "https" && url.Scheme != "http") throw new ArgumentException("baseUrl is http(s)", "baseUrl");
            this.baseUrl = url;
            ClientId = clientId;
            this.transport = transport ?? new HttpClientTransport();
            DeviceAuthorizationEndpoint = new Uri(url, "oauth/device_authorization");
            DeviceTokenEndpoint = new Uri(url, "oauth/token");
        }

        public string ClientId { get; private set; }

        /// <summary>
        /// Where <see cref="StartDeviceAuthorizationAsync"/> posts (default: dauth's
        /// /oauth/device_authorization). dauth has no public clients: the device calls need the app's
        /// client credentials, which belong on a server. Point this and <see cref="DeviceTokenEndpoint"/>
        /// at your game backend's relay, which adds them (HTTP Basic) and forwards the form unchanged.
        /// </summary>
        public Uri DeviceAuthorizationEndpoint { get; set; }

        /// <summary>Where <see cref="PollDeviceTokenAsync"/> posts (default: dauth's /oauth/token); see <see cref="DeviceAuthorizationEndpoint"/>.</summary>
        public Uri DeviceTokenEndpoint { get; set; }

        // ---- Accounts --------------------------------------------------------------------------

        /// <summary>POST /v1/dev-user/register: a new account (a verification mail is sent); returns its uuid.</summary>
        public async Task<string> SignUpAsync(string email, string password, string nickname = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new JsonObjectBuilder().Add("email", email).Add("password", password).AddOptional("nickname", nickname);
            var answer = await PostJsonAsync("v1/dev-user/register", body, null, cancellationToken).ConfigureAwait(false);
            return Read.Digits(answer, "uuid");
        }

        /// <summary>
        /// POST /v1/dev-user/login_devuser with the game's client_id: a login JWT bound to this game. An
        /// account with a second factor throws <see cref="MfaRequiredException"/>: then <see cref="LoginMfaAsync"/>.
        /// </summary>
        public async Task<PlayerSession> LoginAsync(string email, string password, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new JsonObjectBuilder().Add("email", email).Add("password", password).Add("client_id", ClientId);
            var answer = await PostJsonAsync("v1/dev-user/login_devuser", body, null, cancellationToken).ConfigureAwait(false);
            Read.ThrowIfMfaRequired(answer);
            return Read.Session(answer);
        }

        /// <summary>
        /// POST /v1/dev-user/login/mfa: the second step of a sign-in that threw <see cref="MfaRequiredException"/>.
        /// Its <see cref="MfaRequiredException.MfaToken"/> and the player's current authenticator code or an
        /// unused recovery code give the session, bound as the first step was. <see cref="InvalidMfaCodeException"/>
        /// (401): wrong or used code, ask again (a token takes 5 codes); <see cref="InvalidMfaTokenException"/>
        /// (401): unknown, expired, used or ended after 5 codes, sign in again.
        /// </summary>
        public async Task<PlayerSession> LoginMfaAsync(string mfaToken, string code, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (string.IsNullOrEmpty(mfaToken)) throw new ArgumentException("mfaToken is required", "mfaToken");
            if (string.IsNullOrEmpty(code)) throw new ArgumentException("code is required", "code");
            var body = new JsonObjectBuilder().Add("mfa_token", mfaToken).Add("code", code);
            return Read.Session(await PostJsonAsync("v1/dev-user/login/mfa", body, null, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>POST /v1/dev-user/guest: a guest account bound to this game; keep <see cref="GuestAccount.GuestSecret"/> on the device.</summary>
        public async Task<GuestAccount> CreateGuestAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new JsonObjectBuilder().Add("client_id", ClientId);
            var answer = await PostJsonAsync("v1/dev-user/guest", body, null, cancellationToken).ConfigureAwait(false);
            return new GuestAccount(Read.Session(answer), Read.String(answer, "guest_secret"));
        }

        /// <summary>POST /v1/dev-user/guest/login: signs the guest in again with its uuid and secret.</summary>
        public async Task<PlayerSession> GuestLoginAsync(string uuid, string guestSecret, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new JsonObjectBuilder().Add("uuid", uuid).Add("guest_secret", guestSecret);
            return Read.Session(await PostJsonAsync("v1/dev-user/guest/login", body, null, cancellationToken).ConfigureAwait(false));
        }

        /// <summary>
        /// POST /v1/dev-user/guest/upgrade: the guest becomes a full e-mail account with the same uuid,
        /// wallet and slots; the guest secret stops working. Returns the uuid.
        /// </summary>
        public async Task<string> UpgradeGuestAsync(PlayerSession guest, string email, string password, string nickname = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new JsonObjectBuilder().Add("email", email).Add("password", password).AddOptional("nickname", nickname);
            var answer = await PostJsonAsync("v1/dev-user/guest/upgrade", body, TokenOf(guest), cancellationToken).ConfigureAwait(false);
            return answer.Get("uuid") != null ? Read.Digits(answer, "uuid") : guest.Uuid;
        }

        /// <summary>
        /// POST /v1/dev-user/federated-login: a native sign-in with an upstream id_token (Apple, Google, ...).
        /// An id_token is accepted once: <see cref="IdTokenReplayedException"/> for one used already (get a new one).
        /// An account with a second factor throws <see cref="MfaRequiredException"/> (Created set): then <see cref="LoginMfaAsync"/>.
        /// </summary>
        public async Task<FederatedLogin> FederatedLoginAsync(string provider, string idToken, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new JsonObjectBuilder().Add("provider", provider).Add("id_token", idToken).Add("client_id", ClientId);
            var answer = await PostJsonAsync("v1/dev-user/federated-login", body, null, cancellationToken).ConfigureAwait(false);
            Read.ThrowIfMfaRequired(answer);
            return new FederatedLogin(Read.Session(answer), Read.Bool(answer, "created"));
        }

        // ---- Platform sign-in inside the game (docs/federation.md) -------------------------------

        /// <summary>
        /// POST /v1/dev-user/platform-login with a Steam session ticket: the bytes of
        /// <c>SteamUser.GetAuthTicketForWebApi(identity)</c>'s <c>GetTicketForWebApiResponse_t</c>, the
        /// identity being the provider's (e.g. "dauth"). <paramref name="provider"/> is the steam_ticket entry's id.
        /// Throws <see cref="PlatformRejectedException"/> (401), <see cref="PlatformBannedException"/> (403: publisher or
        /// VAC ban) or <see cref="MfaRequiredException"/>.
        /// </summary>
        public Task<FederatedLogin> SteamTicketLoginAsync(string provider, byte[] ticket, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (ticket == null || ticket.Length == 0) throw new ArgumentException("ticket is required", "ticket");
            var hex = new StringBuilder(ticket.Length * 2);
            foreach (byte b in ticket) hex.Append(b.ToString("x2", CultureInfo.InvariantCulture));
            return PlatformLoginAsync(provider, new JsonObjectBuilder().Add("ticket", hex.ToString()), cancellationToken);
        }

        /// <summary>
        /// POST /v1/dev-user/platform-login with an Epic Online Services Connect ID token
        /// (<c>EOS_Connect_CopyIdToken</c>'s JWT). Throws <see cref="PlatformRejectedException"/> (401: expired,
        /// another client's, not signed by EOS, used before) or <see cref="MfaRequiredException"/>.
        /// </summary>
        public Task<FederatedLogin> EpicLoginAsync(string provider, string idToken, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (string.IsNullOrEmpty(idToken)) throw new ArgumentException("idToken is required", "idToken");
            return PlatformLoginAsync(provider, new JsonObjectBuilder().Add("id_token", idToken), cancellationToken);
        }

        /// <summary>
        /// POST /v1/dev-user/platform-login with Game Center's identity-verification signature. Throws
        /// <see cref="PlatformRejectedException"/> (401: another bundle id, a key URL not on apple.com, a stale
        /// (over 5 minutes) or replayed signature) or <see cref="MfaRequiredException"/>.
        /// </summary>
        public Task<FederatedLogin> GameCenterLoginAsync(string provider, GameCenterSignature signature,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            if (signature == null || signature.Signature == null || signature.Salt == null)
                throw new ArgumentException("signature, with its Signature and Salt, is required", "signature");
            var credential = new JsonObjectBuilder()
                .Add("public_key_url", signature.PublicKeyUrl)
                .Add("signature", Convert.ToBase64String(signature.Signature))
                .Add("salt", Convert.ToBase64String(signature.Salt))
                .Add("timestamp", JsonValue.FromNumberText(signature.Timestamp.ToString(CultureInfo.InvariantCulture)))
                .Add("team_player_id", signature.TeamPlayerId)
                .Add("bundle_id", signature.BundleId);
            return PlatformLoginAsync(provider, credential, cancellationToken);
        }

        /// <summary>
        /// POST /v1/dev-user/platform-login with a Google Play Games server auth code
        /// (<c>PlayGamesPlatform.Instance.RequestServerSideAccess</c>). Throws <see cref="PlatformRejectedException"/>
        /// (401: an invalid or used code) or <see cref="MfaRequiredException"/>.
        /// </summary>
        public Task<FederatedLogin> GooglePlayGamesLoginAsync(string provider, string serverAuthCode,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            if (string.IsNullOrEmpty(serverAuthCode)) throw new ArgumentException("serverAuthCode is required", "serverAuthCode");
            return PlatformLoginAsync(provider, new JsonObjectBuilder().Add("server_auth_code", serverAuthCode), cancellationToken);
        }

        private async Task<FederatedLogin> PlatformLoginAsync(string provider, JsonObjectBuilder credential, CancellationToken cancellationToken)
        {
            var body = new JsonObjectBuilder().Add("provider", provider).Add("client_id", ClientId).Add("credential", credential.Build());
            var answer = await PostJsonAsync("v1/dev-user/platform-login", body, null, cancellationToken).ConfigureAwait(false);
            Read.ThrowIfMfaRequired(answer);
            return new FederatedLogin(Read.Session(answer), Read.Bool(answer, "created"));
        }

        /// <summary>GET /v1/dev-user/identities: the upstream identities linked to the player's account.</summary>
        public async Task<IReadOnlyList<LinkedIdentity>> ListIdentitiesAsync(PlayerSession player, CancellationToken cancellationToken = default(CancellationToken))
        {
            var answer = Read.Answer(await SendAsync("GET", "v1/dev-user/identities", null, null, TokenOf(player), cancellationToken).ConfigureAwait(false));
            var identities = new List<LinkedIdentity>();
            foreach (var item in Read.Array(answer, "identities")) identities.Add(Read.Identity(item));
            return identities;
        }

        /// <summary>
        /// POST /v1/dev-user/identities: links an upstream identity, proven by its id_token, to the signed-in
        /// account. With the game's session only a guest may (it becomes a full account, same uuid); any other
        /// account gets <see cref="FirstPartyRequiredException"/>: the player links at the dauth console.
        /// 409 identity_in_use when another account has it.
        /// </summary>
        public async Task<LinkedIdentity> LinkIdentityAsync(PlayerSession player, string provider, string idToken,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = new JsonObjectBuilder().Add("provider", provider).Add("id_token", idToken);
            var answer = await PostJsonAsync("v1/dev-user/identities", body, TokenOf(player), cancellationToken).ConfigureAwait(false);
            var wrapped = answer.Get("identity");
            return Read.Identity(wrapped != null && wrapped.Kind == JsonKind.Object ? wrapped : answer);
        }

        /// <summary>
        /// DELETE /v1/dev-user/identities/{id} with a console JWT: <see cref="FirstPartyRequiredException"/> with the
        /// game's, <see cref="LastSignInMethodException"/> when it is the account's last way in.
        /// </summary>
        public async Task UnlinkIdentityAsync(PlayerSession player, string identityId, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (string.IsNullOrEmpty(identityId)) throw new ArgumentException("identityId is required", "identityId");
            Read.Answer(await SendAsync("DELETE", "v1/dev-user/identities/" + Uri.EscapeDataString(identityId), null, null, TokenOf(player),
                cancellationToken).ConfigureAwait(false));
        }

        // ---- Device authorization grant (RFC 8628) ---------------------------------------------

        /// <summary>POST /oauth/device_authorization: a device and user code for this game.</summary>
        public async Task<DeviceAuthorization> StartDeviceAuthorizationAsync(string scope = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var form = new List<KeyValuePair<string, string>> { Pair("client_id", ClientId) };
            if (scope != null) form.Add(Pair("scope", scope));
            var answer = await SendAsync("POST", DeviceAuthorizationEndpoint, FormBody(form), FormType, null, cancellationToken).ConfigureAwait(false);
            var json = Read.Answer(answer);
            return new DeviceAuthorization
            {
                DeviceCode = Read.String(json, "device_code"),
                UserCode = Read.String(json, "user_code"),
                VerificationUri = Read.String(json, "verification_uri"),
                VerificationUriComplete = Read.OptionalString(json, "verification_uri_complete"),
                ExpiresIn = (int)Read.Integer(json, "expires_in"),
                Interval = json.Get("interval") == null ? 5 : (int)Read.Integer(json, "interval"),
            };
        }

        /// <summary>
        /// One poll of /oauth/token with the device code: the tokens once approved; pending otherwise.
        /// access_denied throws <see cref="DeviceAccessDeniedException"/>, expired_token <see cref="DeviceCodeExpiredException"/>.
        /// </summary>
        public async Task<DevicePoll> PollDeviceTokenAsync(string deviceCode, CancellationToken cancellationToken = default(CancellationToken))
        {
            var form = new List<KeyValuePair<string, string>>
            {
                Pair("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                Pair("device_code", deviceCode),
                Pair("client_id", ClientId),
            };
            var answer = await SendAsync("POST", DeviceTokenEndpoint, FormBody(form), FormType, null, cancellationToken).ConfigureAwait(false);
            if (answer.Status >= 400)
            {
                var error = Read.ErrorOf(answer);
                if (error.Code == ErrorCodes.AuthorizationPending) return new DevicePoll(null, false);
                if (error.Code == ErrorCodes.SlowDown) return new DevicePoll(null, true);
                if (error.Code == ErrorCodes.ExpiredToken) throw new DeviceCodeExpiredException(error.Status, error.Message);
                throw error;
            }
            var json = Read.Answer(answer);
            return new DevicePoll(new OAuthTokens
            {
                AccessToken = Read.String(json, "access_token"),
                TokenType = Read.String(json, "token_type"),
                ExpiresIn = json.Get("expires_in") == null ? (int?)null : (int)Read.Integer(json, "expires_in"),
                RefreshToken = Read.OptionalString(json, "refresh_token"),
                IdToken = Read.OptionalString(json, "id_token"),
                Scope = Read.OptionalString(json, "scope"),
                UserId = json.Get("user_id") == null ? null : Read.Digits(json, "user_id"),
            }, false);
        }

        /// <summary>
        /// Polls at the service's interval (plus 5 s after each slow_down) until the player approves,
        /// denies, the code expires, or <paramref name="cancellationToken"/> is cancelled.
        /// </summary>
        public async Task<OAuthTokens> WaitForDeviceTokenAsync(DeviceAuthorization authorization, CancellationToken cancellationToken = default(CancellationToken))
        {
            int interval = Math.Max(1, authorization.Interval);
            var deadline = DateTime.UtcNow.AddSeconds(authorization.ExpiresIn);
            while (true)
            {
                // No ConfigureAwait(false) here: the next poll calls the transport, which must run on
                // the caller's context (UnityWebRequest only works on Unity's main thread).
                await Task.Delay(TimeSpan.FromSeconds(interval), cancellationToken);
                var poll = await PollDeviceTokenAsync(authorization.DeviceCode, cancellationToken);
                if (poll.Tokens != null) return poll.Tokens;
                if (poll.SlowDown) interval += 5;
                if (DateTime.UtcNow > deadline) throw new DeviceCodeExpiredException(400, "the device code expired");
            }
        }

        /// <summary>POST /v1/device/approve (a companion app, with the player's login JWT): approves a user code.</summary>
        public Task ApproveDeviceAsync(PlayerSession player, string userCode, CancellationToken cancellationToken = default(CancellationToken))
        {
            return PostJsonAsync("v1/device/approve", new JsonObjectBuilder().Add("user_code", userCode), TokenOf(player), cancellationToken);
        }

        /// <summary>POST /v1/device/deny: refuses a user code (the device's poll then gets access_denied).</summary>
        public Task DenyDeviceAsync(PlayerSession player, string userCode, CancellationToken cancellationToken = default(CancellationToken))
        {
            return PostJsonAsync("v1/device/deny", new JsonObjectBuilder().Add("user_code", userCode), TokenOf(player), cancellationToken);
        }

        // ---- PIN wallet ------------------------------------------------------------------------

        /// <summary>
        /// POST /v1/pin/register: creates the player's wallet under a 6-digit PIN. The PIN is hashed
        /// here with a fresh pin_salt and never sent. 409 wallet_exists when the player has one.
        /// </summary>
        public async Task<PinRegistration> RegisterPinAsync(PlayerSession player, string pin, CancellationToken cancellationToken = default(CancellationToken))
        {
            var salt = PinCrypto.NewSalt();
            var pinHash = PinCrypto.PinHash(pin, salt);
            var body = new JsonObjectBuilder().Add("user_uuid", UuidNumber(player)).Add("pin_hash", pinHash).Add("pin_salt", salt);
            var answer = await PostJsonAsync("v1/pin/register", body, TokenOf(player), cancellationToken).ConfigureAwait(false);
            var data = answer.Get("data");
            if (data == null || data.Kind != JsonKind.Array || data.Items.Count != 1 || data.Items[0].Kind != JsonKind.Object)
                throw new MalformedResponseException(200, "pin/register: data is not one wallet");
            var wallet = data.Items[0];
            return new PinRegistration
            {
                Address = Read.String(wallet, "address"),
                MnemonicEncrypted = Read.String(wallet, "mnemonic"),
                Credentials = new PinCredentials(pinHash, salt, Read.String(wallet, "key_share_user")),
            };
        }

        /// <summary>
        /// POST /v1/pin/verify: proves the PIN (no calls) or signs and submits one sponsored operation
        /// from the main wallet. Wrong PIN: <see cref="InvalidPinException"/>; locked: <see cref="PinLockedException"/>.
        /// </summary>
        public async Task<PinVerification> VerifyPinAsync(PlayerSession player, PinCredentials pin, IList<WalletCall> calls = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = pin.AddTo(new JsonObjectBuilder().Add("user_uuid", UuidNumber(player)));
            if (calls != null)
            {
                var items = new List<JsonValue>();
                foreach (var call in calls)
                {
                    items.Add(new JsonObjectBuilder().Add("to", call.To)
                        .Add("value", call.Value.ToString(CultureInfo.InvariantCulture)).Add("data", call.Data).Build());
                }
                body.Add("calls", JsonValue.NewArray(items));
            }
            var answer = await PostJsonAsync("v1/pin/verify", body, TokenOf(player), cancellationToken).ConfigureAwait(false);
            return new PinVerification
            {
                Address = Read.OptionalString(answer, "address"),
                UserOpHash = Read.OptionalString(answer, "user_op_hash"),
                TxHash = Read.OptionalString(answer, "tx_hash"),
            };
        }

        // ---- Wallet, slots and content ---------------------------------------------------------

        /// <summary>GET /v1/dev-user/wallet: the main wallet's address and balances.</summary>
        public async Task<WalletInfo> GetWalletAsync(PlayerSession player, CancellationToken cancellationToken = default(CancellationToken))
        {
            var answer = Read.Answer(await SendAsync("GET", "v1/dev-user/wallet", null, null, TokenOf(player), cancellationToken).ConfigureAwait(false));
            return new WalletInfo
            {
                Address = Read.OptionalString(answer, "address"),
                NativeBalance = Read.OptionalAmount(answer, "native_balance"),
                TokenBalance = Read.OptionalAmount(answer, "token_balance"),
            };
        }

        /// <summary>GET /v1/dev-user/slots: every slot of the player and its content balances.</summary>
        public async Task<IReadOnlyList<PlayerSlot>> GetSlotsAsync(PlayerSession player, CancellationToken cancellationToken = default(CancellationToken))
        {
            var answer = Read.Answer(await SendAsync("GET", "v1/dev-user/slots", null, null, TokenOf(player), cancellationToken).ConfigureAwait(false));
            var slots = new List<PlayerSlot>();
            foreach (var slot in Read.Array(answer, "slots"))
            {
                var balances = new List<ContentBalance>();
                foreach (var b in Read.Array(slot, "balances"))
                    balances.Add(Read.Balance(new ContentBalance(), b, "used"));
                slots.Add(new PlayerSlot
                {
                    SlotId = Read.Slot(slot, "slot_id"),
                    ClientId = Read.String(slot, "client_id"),
                    AppName = Read.OptionalString(slot, "app_name"),
                    ContentAddress = Read.String(slot, "content_address"),
                    Balances = balances,
                });
            }
            return slots;
        }

        /// <summary>GET /v1/development-api/balance_adex/{slot}: a slot address's balance of a cuid (public).</summary>
        public async Task<SlotBalance> GetSlotBalanceAsync(string slotAddress, string cuid = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var path = "v1/development-api/balance_adex/" + Uri.EscapeDataString(slotAddress)
                + (cuid == null ? "" : "?cuid=" + Uri.EscapeDataString(cuid));
            var answer = Read.Answer(await SendAsync("GET", path, null, null, null, cancellationToken).ConfigureAwait(false));
            var balance = Read.Balance(new SlotBalance(), answer, "used_balances");
            balance.Slot = Read.String(answer, "slot");
            return balance;
        }

        /// <summary>
        /// POST /v1/development-api/user_buy_content_token: buys content tokens of <paramref name="cuid"/>
        /// for the slot, paid from the player's main wallet (PIN-gated). <paramref name="amount"/> is
        /// wei as an integer string, or ether as "0.5" / "1 ether".
        /// </summary>
        public async Task<ContentPurchase> BuyContentAsync(PlayerSession player, SlotId slot, string cuid, string amount, PinCredentials pin,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = pin.AddTo(new JsonObjectBuilder().Add("client_id", ClientId).Add("user_dbkey", slot.Digits)
                .Add("amount", amount).Add("cuid", cuid));
            var answer = await PostJsonAsync("v1/development-api/user_buy_content_token", body, TokenOf(player), cancellationToken).ConfigureAwait(false);
            return new ContentPurchase
            {
                TxHash = Read.String(answer, "tx_hash"),
                TokenAmount = Read.Amount(answer, "token_amount"),
                NativePaid = Read.Amount(answer, "native_paid"),
                PlatformFee = Read.Amount(answer, "platform_fee"),
                ProviderReceived = Read.Amount(answer, "provider_received"),
            };
        }

        /// <summary>POST /v1/token/transfer: sends <paramref name="amount"/> base units of an ERC-20 from one of the player's wallets (PIN-gated).</summary>
        public async Task<TokenTransfer> TransferTokenAsync(PlayerSession player, string fromAddress, string toAddress, BigInteger amount,
            string contractAddress, PinCredentials pin, CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = pin.AddTo(new JsonObjectBuilder().Add("from_address", fromAddress).Add("to_address", toAddress)
                .Add("amount", amount.ToString(CultureInfo.InvariantCulture)).Add("contract_address", contractAddress));
            var answer = await PostJsonAsync("v1/token/transfer", body, TokenOf(player), cancellationToken).ConfigureAwait(false);
            return new TokenTransfer
            {
                TransactionHash = Read.String(answer, "transaction_hash"),
                UserOpHash = Read.OptionalString(answer, "user_op_hash"),
                FromAddress = Read.String(answer, "from_address"),
                ToAddress = Read.String(answer, "to_address"),
                Amount = Read.Amount(answer, "amount"),
                ContractAddress = Read.String(answer, "contract_address"),
            };
        }

        // ---- Session keys: the app's PIN-less powers over the wallet ---------------------------

        /// <summary>
        /// POST /v1/wallet/session-keys: grants this game its wallet policy with the PIN. A fresh session
        /// key is registered on the player's main wallet, on chain; the game's backend then acts within
        /// the policy without the PIN (docs/session-keys.md); the consent page states the policy in words.
        /// A NotFoundException or ConflictException when the game has no wallet policy or the player no grant for it.
        /// </summary>
        public async Task<SessionKeyGrant> GrantSessionKeyAsync(PlayerSession player, PinCredentials pin,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var body = pin.AddTo(new JsonObjectBuilder().Add("client_id", ClientId));
            var answer = await PostJsonAsync("v1/wallet/session-keys", body, TokenOf(player), cancellationToken).ConfigureAwait(false);
            var grant = Read.SessionKey(answer);
            grant.ClientId = ClientId;
            return grant;
        }

        /// <summary>GET /v1/wallet/session-keys: every app's active session key on the player's wallet, with what it spent today.</summary>
        public async Task<IReadOnlyList<SessionKeyGrant>> GetSessionKeysAsync(PlayerSession player, CancellationToken cancellationToken = default(CancellationToken))
        {
            var answer = Read.Answer(await SendAsync("GET", "v1/wallet/session-keys", null, null, TokenOf(player), cancellationToken).ConfigureAwait(false));
            var keys = new List<SessionKeyGrant>();
            foreach (var item in Read.Array(answer, "session_keys")) keys.Add(Read.SessionKey(item));
            return keys;
        }

        /// <summary>
        /// DELETE /v1/wallet/session-keys/{client_id} (no PIN): the app's session key signs its own revocation
        /// on chain. <paramref name="clientId"/> defaults to this game. Returns the transaction hash, or null.
        /// </summary>
        public async Task<string> RevokeSessionKeyAsync(PlayerSession player, string clientId = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var path = "v1/wallet/session-keys/" + Uri.EscapeDataString(clientId ?? ClientId);
            var answer = Read.Answer(await SendAsync("DELETE", path, null, null, TokenOf(player), cancellationToken).ConfigureAwait(false));
            return Read.OptionalString(answer, "tx_hash");
        }

        // ---- Status updates (with the app's access token for this player) ----------------------

        /// <summary>POST /v1/oauth/status/login: the player is in the game (rights not listable).</summary>
        public Task<LoginStatus> ReportLoginAsync(string accessToken, string userId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return StatusAsync("v1/oauth/status/login", accessToken, userId, cancellationToken);
        }

        /// <summary>POST /v1/oauth/status/logout: the player left; the rights may be listed (transfer_enabled).</summary>
        public Task<LoginStatus> ReportLogoutAsync(string accessToken, string userId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return StatusAsync("v1/oauth/status/logout", accessToken, userId, cancellationToken);
        }

        /// <summary>GET /v1/oauth/status/check: the current status and transfer_enabled.</summary>
        public async Task<LoginStatus> CheckStatusAsync(string accessToken, string userId, CancellationToken cancellationToken = default(CancellationToken))
        {
            var path = "v1/oauth/status/check?user_id=" + Uri.EscapeDataString(userId) + "&client_id=" + Uri.EscapeDataString(ClientId);
            return Read.Status(Read.Answer(await SendAsync("GET", path, null, null, accessToken, cancellationToken).ConfigureAwait(false)));
        }

        private async Task<LoginStatus> StatusAsync(string path, string accessToken, string userId, CancellationToken cancellationToken)
        {
            var body = new JsonObjectBuilder().Add("user_id", userId).Add("client_id", ClientId);
            return Read.Status(await PostJsonAsync(path, body, accessToken, cancellationToken).ConfigureAwait(false));
        }

        // ---- Plumbing --------------------------------------------------------------------------

        private const string JsonType = "application/json";
        private const string FormType = "application/x-www-form-urlencoded";

        private async Task<JsonValue> PostJsonAsync(string path, JsonObjectBuilder body, string bearer, CancellationToken cancellationToken)
        {
            return Read.Answer(await SendAsync("POST", path, body.ToString(), JsonType, bearer, cancellationToken).ConfigureAwait(false));
        }

        private Task<DauthHttpResponse> SendAsync(string method, string path, string body, string contentType, string bearer,
            CancellationToken cancellationToken)
        {
            return SendAsync(method, new Uri(baseUrl, path), body, contentType, bearer, cancellationToken);
        }

        private async Task<DauthHttpResponse> SendAsync(string method, Uri url, string body, string contentType, string bearer,
            CancellationToken cancellationToken)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var headers = new Dictionary<string, string> { { "Accept", JsonType } };
            if (bearer != null) headers["Authorization"] = "Bearer " + bearer;
            var request = new DauthHttpRequest(method, url, headers, body, contentType);
            DauthHttpResponse answer;
            try
            {
                answer = await transport.SendAsync(request, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
            {
                // HttpClient reports its own timeout as a cancellation nobody asked for.
                throw new DauthConnectionException(ErrorCodes.Timeout, "dauth did not answer in time", e);
            }
            catch (HttpRequestException e)
            {
                throw new DauthConnectionException(ErrorCodes.ConnectionFailed, "dauth could not be reached: " + e.Message, e);
            }
            catch (IOException e)
            {
                throw new DauthConnectionException(ErrorCodes.ConnectionFailed, "dauth could not be reached: " + e.Message, e);
            }
            if (answer == null) throw new MalformedResponseException(0, "the transport returned no answer");
            return answer;
        }

        private static string TokenOf(PlayerSession player)
        {
            if (player == null) throw new ArgumentNullException("player");
            return player.Token;
        }

        /// <summary>The PIN endpoints take user_uuid as a JSON number: the uuid's digits, written as they are.</summary>
        private static JsonValue UuidNumber(PlayerSession player)
        {
            return SlotId.Parse(player.Uuid).ToJsonNumber();
        }

        private static KeyValuePair<string, string> Pair(string name, string value)
        {
            return new KeyValuePair<string, string>(name, value);
        }

        private static string FormBody(IEnumerable<KeyValuePair<string, string>> fields)
        {
            var sb = new StringBuilder();
            foreach (var field in fields)
            {
                if (sb.Length > 0) sb.Append('&');
                sb.Append(Uri.EscapeDataString(field.Key)).Append('=').Append(Uri.EscapeDataString(field.Value));
            }
            return sb.ToString();
        }
    }
}
