using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Dauth;
using UnityEngine;

/// <summary>
/// A player's first session with dauth: play as a guest (the secret stays in PlayerPrefs) or sign in
/// with Apple, Google or Discord natively, set a PIN, get this game's slot from your game backend, buy
/// content, grant the game its PIN-less wallet powers, and upgrade to an e-mail account.
/// Wire the public methods to UI buttons; each logs what it did or the service's error code.
/// </summary>
public sealed class DauthPlayerSample : MonoBehaviour
{
    [SerializeField] private string dauthUrl = "https://auth.example.com";
    [SerializeField] private string clientId = "your-game-client-id";
    /// <summary>Your game backend: it turns the login JWT into the slot (the backend SDKs' get_slot_info).</summary>
    [SerializeField] private string gameBackendUrl = "https://game.example.com";
    [SerializeField] private string cuid = "your-game-cuid";

    private readonly CancellationTokenSource lifetime = new CancellationTokenSource();
    private DauthClient dauth;
    private PlayerSession player;
    private PinCredentials pin;
    private SlotId slot;

    private void Awake()
    {
        dauth = new DauthClient(dauthUrl, clientId, new UnityWebRequestTransport());
    }

    private void OnDestroy()
    {
        lifetime.Cancel(); // ends any request in flight
    }

    public void PlayAsGuest() { Run("Sign-in", PlayAsGuestAsync); }
    public void EnterPin(string sixDigits) { Run("PIN", () => EnterPinAsync(sixDigits)); }
    public void FetchSlot() { Run("Slot", FetchSlotAsync); }
    public void BuyContent() { Run("Purchase", BuyContentAsync); }
    public void Upgrade(string email, string password) { Run("Upgrade", () => UpgradeAsync(email, password)); }
    /// <summary>After the platform's own sign-in (Sign in with Apple, Google Sign-In) gave an id_token.</summary>
    public void SignInWith(string provider, string idToken) { Run("Sign-in with " + provider, () => SignInWithAsync(provider, idToken)); }
    public void GrantGamePowers() { Run("Grant", GrantGamePowersAsync); }

    /// <summary>Runs a button's work on the main thread and logs a refusal by its code.</summary>
    private async void Run(string what, Func<Task> work)
    {
        try
        {
            await work();
        }
        catch (OperationCanceledException)
        {
            // The object was destroyed mid-request.
        }
        catch (DauthException e)
        {
            // DauthConnectionException (Code "connection_failed" or "timeout") when no answer came.
            Debug.LogWarning(what + " failed: " + e.Code + " (" + e.Message + ")");
        }
        catch (System.Net.Http.HttpRequestException e)
        {
            Debug.LogWarning(what + " failed: the game backend could not be reached (" + e.Message + ")");
        }
    }

    /// <summary>Signs in as the guest of this device, creating it on the first run.</summary>
    private async Task PlayAsGuestAsync()
    {
        var uuid = PlayerPrefs.GetString("dauth.guest.uuid", "");
        if (uuid.Length > 0)
        {
            player = await dauth.GuestLoginAsync(uuid, PlayerPrefs.GetString("dauth.guest.secret"), lifetime.Token);
        }
        else
        {
            var guest = await dauth.CreateGuestAsync(lifetime.Token);
            PlayerPrefs.SetString("dauth.guest.uuid", guest.Session.Uuid);
            PlayerPrefs.SetString("dauth.guest.secret", guest.GuestSecret);
            PlayerPrefs.Save();
            player = guest.Session;
        }
        Debug.Log("Signed in as player " + player.Uuid);
    }

    /// <summary>Creates the wallet under the PIN the player chose, or unlocks it on a later run.</summary>
    private async Task EnterPinAsync(string sixDigits)
    {
        var salt = PlayerPrefs.GetString("dauth.pin.salt", "");
        if (salt.Length == 0)
        {
            var registration = await dauth.RegisterPinAsync(player, sixDigits, lifetime.Token);
            // The salt and key_share_user stay on the device; the PIN and pin_hash never do.
            PlayerPrefs.SetString("dauth.pin.salt", registration.Credentials.PinSalt);
            PlayerPrefs.SetString("dauth.pin.share", registration.Credentials.KeyShareUser);
            PlayerPrefs.Save();
            pin = registration.Credentials;
            Debug.Log("Wallet " + registration.Address + " created. Show the recovery words once: "
                + PinCrypto.DecryptMnemonic(registration.MnemonicEncrypted, pin.PinHash));
            return;
        }
        var candidate = PinCredentials.FromPin(sixDigits, salt, PlayerPrefs.GetString("dauth.pin.share"));
        try
        {
            var verified = await dauth.VerifyPinAsync(player, candidate, null, lifetime.Token);
            pin = candidate;
            Debug.Log("PIN accepted for wallet " + verified.Address);
        }
        catch (InvalidPinException)
        {
            Debug.LogWarning("Wrong PIN");
        }
        catch (PinLockedException e)
        {
            Debug.LogWarning("Too many wrong PINs; try again in " + (e.RetryAfterSeconds ?? 900) + " s");
        }
    }

    /// <summary>Sends the login JWT to the game backend, which answers this game's slot id.</summary>
    private async Task FetchSlotAsync()
    {
        var body = new JsonObjectBuilder().Add("jwt", player.Token).ToString();
        var request = new DauthHttpRequest("POST", new Uri(gameBackendUrl + "/session"), null, body, "application/json");
        var answer = await new UnityWebRequestTransport().SendAsync(request, lifetime.Token);
        if (answer.Status != 200)
        {
            Debug.LogWarning("The game backend answered " + answer.Status);
            return;
        }
        // Read with the SDK's parser: a 19-digit id stays exact (never through double).
        slot = SlotId.FromJson(JsonParser.Parse(answer.Body).Get("slot_id"));
        Debug.Log("Slot " + slot);
    }

    /// <summary>Buys 0.001 ether of content tokens for the slot and shows the new balance.</summary>
    private async Task BuyContentAsync()
    {
        var bought = await dauth.BuyContentAsync(player, slot, cuid, "0.001", pin, lifetime.Token);
        var mine = (await dauth.GetSlotsAsync(player, lifetime.Token)).First(s => s.SlotId.Equals(slot));
        var balance = mine.Balances.First(b => b.Cuid == cuid).Balance;
        Debug.Log("Bought " + bought.TokenAmount + " tokens (tx " + bought.TxHash + "); balance " + balance);
    }

    /// <summary>
    /// Native sign-in with the upstream id_token. Signed in as a guest already, the identity is linked
    /// instead (a guest's own session may; any other account links at the dauth console): the guest
    /// becomes a full account with the same uuid, wallet and slots.
    /// </summary>
    private async Task SignInWithAsync(string provider, string idToken)
    {
        if (player != null && PlayerPrefs.HasKey("dauth.guest.uuid"))
        {
            var linked = await dauth.LinkIdentityAsync(player, provider, idToken, lifetime.Token);
            PlayerPrefs.DeleteKey("dauth.guest.uuid");
            PlayerPrefs.DeleteKey("dauth.guest.secret");
            Debug.Log("Player " + player.Uuid + " now signs in with " + linked.ProviderName);
            return;
        }
        try
        {
            var login = await dauth.FederatedLoginAsync(provider, idToken, lifetime.Token);
            player = login.Session;
            Debug.Log((login.Created ? "Welcome, new player " : "Welcome back, player ") + player.Uuid);
        }
        catch (AccountLinkRequiredException)
        {
            // Never linked by e-mail alone, nor by the game: the owner links it at the dauth console.
            Debug.LogWarning("An account with this e-mail exists: sign in to it at the dauth console and link " + provider + " there");
        }
        catch (IdTokenReplayedException)
        {
            // Each id_token signs in once: ask the platform's SDK for a new one, never resend this one.
            Debug.LogWarning("This " + provider + " sign-in was used already: sign in with " + provider + " again");
        }
    }

    /// <summary>
    /// Lets the game act within its wallet policy without asking for the PIN again (the consent page
    /// and the console show the policy in words); the player can revoke it any time.
    /// </summary>
    private async Task GrantGamePowersAsync()
    {
        var grant = await dauth.GrantSessionKeyAsync(player, pin, lifetime.Token);
        Debug.Log("The game may act within its wallet policy until " + grant.ValidUntil);
    }

    /// <summary>Keeps everything (uuid, wallet, slots) under an e-mail account; the guest secret ends.</summary>
    private async Task UpgradeAsync(string email, string password)
    {
        await dauth.UpgradeGuestAsync(player, email, password, null, lifetime.Token);
        PlayerPrefs.DeleteKey("dauth.guest.uuid");
        PlayerPrefs.DeleteKey("dauth.guest.secret");
        player = await dauth.LoginAsync(email, password, lifetime.Token);
        Debug.Log("Player " + player.Uuid + " now signs in with " + email);
    }
}
