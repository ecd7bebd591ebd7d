using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Dauth;
using UnityEngine;

/// <summary>
/// A player's first session with dauth: play as a guest (the secret stays in PlayerPrefs), set a
/// PIN, get this game's slot from your game backend, buy content, and upgrade to an e-mail account.
/// Wire the public methods to UI buttons; each logs what it did.
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

    /// <summary>Signs in as the guest of this device, creating it on the first run.</summary>
    public async void PlayAsGuest()
    {
        try
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
        catch (DauthException e)
        {
            Debug.LogWarning("Sign-in failed: " + e.Code + " (" + e.Message + ")");
        }
    }

    /// <summary>Creates the wallet under the PIN the player chose, or unlocks it on a later run.</summary>
    public async void EnterPin(string sixDigits)
    {
        try
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
            }
            else
            {
                pin = PinCredentials.FromPin(sixDigits, salt, PlayerPrefs.GetString("dauth.pin.share"));
                var verified = await dauth.VerifyPinAsync(player, pin, null, lifetime.Token);
                Debug.Log("PIN accepted for wallet " + verified.Address);
            }
        }
        catch (InvalidPinException)
        {
            pin = null;
            Debug.LogWarning("Wrong PIN");
        }
        catch (PinLockedException e)
        {
            pin = null;
            Debug.LogWarning("Too many wrong PINs; try again in " + (e.RetryAfterSeconds ?? 900) + " s");
        }
        catch (DauthException e)
        {
            Debug.LogWarning("PIN failed: " + e.Code);
        }
    }

    /// <summary>Sends the login JWT to the game backend, which answers this game's slot id.</summary>
    public async void FetchSlot()
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
    public async void BuyContent()
    {
        try
        {
            var bought = await dauth.BuyContentAsync(player, slot, cuid, "0.001", pin, lifetime.Token);
            var mine = (await dauth.GetSlotsAsync(player, lifetime.Token)).First(s => s.SlotId.Equals(slot));
            var balance = mine.Balances.First(b => b.Cuid == cuid).Balance;
            Debug.Log("Bought " + bought.TokenAmount + " tokens (tx " + bought.TxHash + "); balance " + balance);
        }
        catch (ConflictException e)
        {
            Debug.LogWarning("Not possible now: " + e.Code); // e.g. insufficient_funds
        }
        catch (DauthException e)
        {
            Debug.LogWarning("Purchase failed: " + e.Code);
        }
    }

    /// <summary>Keeps everything (uuid, wallet, slots) under an e-mail account; the guest secret ends.</summary>
    public async void Upgrade(string email, string password)
    {
        try
        {
            await dauth.UpgradeGuestAsync(player, email, password, null, lifetime.Token);
            PlayerPrefs.DeleteKey("dauth.guest.uuid");
            PlayerPrefs.DeleteKey("dauth.guest.secret");
            player = await dauth.LoginAsync(email, password, lifetime.Token);
            Debug.Log("Player " + player.Uuid + " now signs in with " + email);
        }
        catch (DauthException e)
        {
            Debug.LogWarning("Upgrade failed: " + e.Code); // email_taken, weak_password, ...
        }
    }
}
