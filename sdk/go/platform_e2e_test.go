package dauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	dauth "github.com/dauth/dauth/sdk/go"
)

// platformOffer is what the fakes' credential desk answers: a fresh single-use credential.
type platformOffer struct {
	Provider   string         `json:"provider"`
	Credential map[string]any `json:"credential"`
}

func freshCredential(t *testing.T, kind, query string) platformOffer {
	t.Helper()
	response, err := http.Get(os.Getenv("DAUTH_E2E_PLATFORM_DESK") + "/" + kind + "?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	var offer platformOffer
	if err := json.NewDecoder(response.Body).Decode(&offer); err != nil {
		t.Fatal(err)
	}
	return offer
}

// Platform sign-in inside the game against a live dauth. packages/sdk/test/e2e/platformLogin.test.ts
// starts the server with the four platform kinds pointing at local fakes, registers an app and runs
// `go test -run PlatformLive ./...` with DAUTH_E2E_URL, DAUTH_E2E_CLIENT_ID, DAUTH_E2E_CLIENT_SECRET,
// DAUTH_E2E_REDIRECT_URI and DAUTH_E2E_PLATFORM_DESK (GET {desk}/{kind} answers a fresh credential).
// Without DAUTH_E2E_PLATFORM_DESK it skips.
func TestPlatformLive(t *testing.T) {
	if os.Getenv("DAUTH_E2E_URL") == "" || os.Getenv("DAUTH_E2E_PLATFORM_DESK") == "" {
		t.Skip("DAUTH_E2E_PLATFORM_DESK is not set (packages/sdk/test/e2e/platformLogin.test.ts sets it)")
	}
	client, err := dauth.New(dauth.Config{
		ClientID:      os.Getenv("DAUTH_E2E_CLIENT_ID"),
		ClientSecret:  os.Getenv("DAUTH_E2E_CLIENT_SECRET"),
		RedirectURI:   os.Getenv("DAUTH_E2E_REDIRECT_URI"),
		AuthServerURL: os.Getenv("DAUTH_E2E_URL"),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stamp := fmt.Sprintf("%d", time.Now().UnixNano())
	queries := map[string]string{
		"steam_ticket":      "steamid=7656119" + stamp[len(stamp)-10:],
		"epic":              "sub=go" + stamp,
		"game_center":       "team_player_id=T:_go" + stamp,
		"google_play_games": "player_id=go" + stamp,
	}
	for kind, query := range queries {
		offer := freshCredential(t, kind, query)
		first, err := client.PlatformLogin(ctx, offer.Provider, offer.Credential)
		if err != nil || !first.Created {
			t.Fatalf("%s first sign-in: %+v %v", kind, first, err)
		}
		again, err := client.PlatformLogin(ctx, offer.Provider, freshCredential(t, kind, query).Credential)
		if err != nil || again.Created || again.UUID != first.UUID {
			t.Fatalf("%s second sign-in: %+v %v", kind, again, err)
		}
		// Each credential is accepted once.
		if _, err := client.PlatformLogin(ctx, offer.Provider, offer.Credential); !errors.Is(err, dauth.ErrPlatformRejected) {
			t.Fatalf("%s replayed credential: %v", kind, err)
		}
	}
	banned := freshCredential(t, "steam_ticket", "steamid=76561190000000002&banned")
	if _, err := client.PlatformLogin(ctx, banned.Provider, banned.Credential); !errors.Is(err, dauth.ErrPlatformBanned) {
		t.Fatalf("a banned Steam account: %v", err)
	}
}
