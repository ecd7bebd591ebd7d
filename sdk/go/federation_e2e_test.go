package dauth_test

import (
	"context"
	"errors"
	"os"
	"testing"

	dauth "github.com/dauth/dauth/sdk/go"
)

// Native federated sign-in and identities against a live dauth. packages/sdk/test/e2e/federation.test.ts
// starts the server with an OpenID Connect upstream, registers an app, signs id_tokens and runs
// `go test -run FederationLive ./...` with DAUTH_E2E_URL, DAUTH_E2E_CLIENT_ID, DAUTH_E2E_CLIENT_SECRET,
// DAUTH_E2E_REDIRECT_URI, DAUTH_E2E_FED_PROVIDER, DAUTH_E2E_FED_TOKEN_1 and _2 (two id_tokens of one new
// subject) and DAUTH_E2E_FED_BAD_TOKEN (another audience). Without DAUTH_E2E_URL it skips.
func TestFederationLive(t *testing.T) {
	// Other live suites (`-run E2E` in liveServer.test.ts) set DAUTH_E2E_URL without the id_tokens.
	if os.Getenv("DAUTH_E2E_URL") == "" || os.Getenv("DAUTH_E2E_FED_PROVIDER") == "" {
		t.Skip("DAUTH_E2E_FED_PROVIDER is not set (packages/sdk/test/e2e/federation.test.ts sets it)")
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
	provider := os.Getenv("DAUTH_E2E_FED_PROVIDER")
	first, err := client.FederatedLogin(ctx, provider, os.Getenv("DAUTH_E2E_FED_TOKEN_1"))
	if err != nil || !first.Created {
		t.Fatalf("first sign-in: %+v %v", first, err)
	}
	again, err := client.FederatedLogin(ctx, provider, os.Getenv("DAUTH_E2E_FED_TOKEN_2"))
	if err != nil || again.Created || again.UUID != first.UUID {
		t.Fatalf("second sign-in: %+v %v", again, err)
	}
	_, err = client.FederatedLogin(ctx, provider, os.Getenv("DAUTH_E2E_FED_BAD_TOKEN"))
	if !errors.Is(err, dauth.ErrInvalidIDToken) {
		t.Fatalf("another audience: %v", err)
	}
	identities, err := client.ListIdentities(ctx, first.Token)
	if err != nil || len(identities) != 1 || identities[0].Provider != provider {
		t.Fatalf("identities: %+v %v", identities, err)
	}
	// The game's token changes no way in (decisions §9): the console manages identities.
	if err := client.UnlinkIdentity(ctx, first.Token, identities[0].ID); !errors.Is(err, dauth.ErrFirstPartyRequired) {
		t.Fatalf("unlinking with the game's token: %v", err)
	}
}
