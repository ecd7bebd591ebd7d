using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Dauth;
using UnityEngine;
#if DAUTH_STEAM
using Steamworks; // Steamworks.NET
#endif
#if DAUTH_GAME_CENTER
using Apple.GameKit; // Apple's Unity plug-in (com.apple.unityplugin.gamekit)
#endif
#if DAUTH_PLAY_GAMES
using GooglePlayGames; // Google Play Games plug-in for Unity (v11+)
#endif

/// <summary>
/// Sign-in inside the game with the platform the player is on (docs/federation.md, "Platform sign-in inside
/// the game"): a Steam session ticket, Game Center's identity-verification signature, a Play Games server
/// auth code, an EOS Connect ID token. Each is sent once to dauth, which checks it with the platform; the
/// player gets a dauth account (and wallet) the first time, the same one afterwards, on every device.
/// Define DAUTH_STEAM, DAUTH_GAME_CENTER or DAUTH_PLAY_GAMES (Player Settings → Scripting Define Symbols)
/// for the platforms the build ships with. The provider ids are the IDENTITY_PROVIDERS entries' ids.
/// </summary>
public sealed class PlatformSignInSample : MonoBehaviour
{
    [SerializeField] private string dauthUrl = "https://auth.example.com";
    [SerializeField] private string clientId = "your-game-client-id";
    [SerializeField] private string steamProvider = "steam_game";
    /// <summary>The steam_ticket entry's <c>identity</c>: the same string on both sides.</summary>
    [SerializeField] private string steamIdentity = "dauth";
    [SerializeField] private string gameCenterProvider = "game_center";
    [SerializeField] private string playGamesProvider = "play_games";
    [SerializeField] private string epicProvider = "epic";

    private readonly CancellationTokenSource lifetime = new CancellationTokenSource();
    private DauthClient dauth;
    private PlayerSession player;

    private void Awake()
    {
        dauth = new DauthClient(dauthUrl, clientId, new UnityWebRequestTransport());
    }

    private void OnDestroy()
    {
        lifetime.Cancel();
    }

#if DAUTH_STEAM
    private Callback<GetTicketForWebApiResponse_t> steamTicket;

    /// <summary>Steam: a ticket for the Web API, made for dauth's identity string.</summary>
    public void SignInWithSteam()
    {
        steamTicket = Callback<GetTicketForWebApiResponse_t>.Create(answer =>
        {
            if (answer.m_eResult != EResult.k_EResultOK)
            {
                Debug.LogWarning("Steam gave no ticket: " + answer.m_eResult);
                return;
            }
            byte[] ticket = answer.m_rgubTicket.Take(answer.m_cubTicket).ToArray();
            Finish("Steam", dauth.SteamTicketLoginAsync(steamProvider, ticket, lifetime.Token));
        });
        SteamUser.GetAuthTicketForWebApi(steamIdentity);
    }
#endif

#if DAUTH_GAME_CENTER
    /// <summary>Game Center: the local player's identity-verification signature.</summary>
    public async void SignInWithGameCenter()
    {
        if (!GKLocalPlayer.Local.IsAuthenticated) await GKLocalPlayer.Authenticate();
        var items = await GKLocalPlayer.Local.FetchItems();
        var signature = new GameCenterSignature
        {
            PublicKeyUrl = items.PublicKeyUrl,
            Signature = items.GetSignature(),
            Salt = items.GetSalt(),
            Timestamp = items.Timestamp,
            TeamPlayerId = GKLocalPlayer.Local.TeamPlayerId,
            BundleId = Application.identifier,
        };
        Finish("Game Center", dauth.GameCenterLoginAsync(gameCenterProvider, signature, lifetime.Token));
    }
#endif

#if DAUTH_PLAY_GAMES
    /// <summary>Google Play Games: a one-time server auth code, exchanged by dauth for the player id.</summary>
    public void SignInWithPlayGames()
    {
        PlayGamesPlatform.Instance.RequestServerSideAccess(false, code =>
        {
            if (string.IsNullOrEmpty(code))
            {
                Debug.LogWarning("Play Games gave no server auth code (is the player signed in?)");
                return;
            }
            Finish("Play Games", dauth.GooglePlayGamesLoginAsync(playGamesProvider, code, lifetime.Token));
        });
    }
#endif

    /// <summary>Epic Online Services: the JWT of <c>EOS_Connect_CopyIdToken</c> after <c>EOS_Connect_Login</c>.</summary>
    public void SignInWithEpic(string eosConnectIdToken)
    {
        Finish("Epic", dauth.EpicLoginAsync(epicProvider, eosConnectIdToken, lifetime.Token));
    }

    /// <summary>Logs the outcome by its typed error: a refused credential is never resent.</summary>
    private async void Finish(string platform, Task<FederatedLogin> signIn)
    {
        try
        {
            var login = await signIn;
            player = login.Session;
            Debug.Log((login.Created ? "Welcome, new player " : "Welcome back, player ") + player.Uuid + " (" + platform + ")");
        }
        catch (OperationCanceledException)
        {
            // The object was destroyed mid-request.
        }
        catch (PlatformBannedException)
        {
            Debug.LogWarning(platform + " bans this account: it cannot sign in to this game");
        }
        catch (PlatformRejectedException)
        {
            // Expired, for another app, or used already: ask the platform for a new credential.
            Debug.LogWarning(platform + " sign-in was refused: try again");
        }
        catch (MfaRequiredException e)
        {
            // The account has an authenticator: ask for its code, then dauth.LoginMfaAsync(e.MfaToken, code).
            Debug.Log("Enter your authenticator code (" + string.Join(", ", e.Methods) + ")");
        }
        catch (DauthException e)
        {
            Debug.LogWarning(platform + " sign-in failed: " + e.Code);
        }
    }
}
