package dauth_test

import (
	"context"
	"errors"
	"os"
	"testing"

	dauth "github.com/dauth/dauth/sdk/go"
)

// Session operations against a live dauth on its embedded chain. packages/sdk/test/e2e/sessionOperations.test.ts
// sets the app's wallet policy, has a player grant it with the PIN and runs `go test -run SessionOperationsLive
// ./...` with DAUTH_E2E_URL, the app's credentials, DAUTH_E2E_ACCESS_TOKEN (the player's access token for the
// app), DAUTH_E2E_SESSION_TO and DAUTH_E2E_SESSION_DATA (an allowed call) and DAUTH_E2E_SESSION_FORBIDDEN_TO.
// Without DAUTH_E2E_URL it skips.
func TestSessionOperationsLive(t *testing.T) {
	// Other live suites (`-run E2E` in liveServer.test.ts) set DAUTH_E2E_URL without a granted player.
	if os.Getenv("DAUTH_E2E_URL") == "" || os.Getenv("DAUTH_E2E_ACCESS_TOKEN") == "" {
		t.Skip("DAUTH_E2E_ACCESS_TOKEN is not set (packages/sdk/test/e2e/sessionOperations.test.ts sets it)")
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
	accessToken := os.Getenv("DAUTH_E2E_ACCESS_TOKEN")
	allowed := dauth.SessionCall{To: os.Getenv("DAUTH_E2E_SESSION_TO"), Data: os.Getenv("DAUTH_E2E_SESSION_DATA")}
	done, err := client.SessionOperations(ctx, accessToken, []dauth.SessionCall{allowed})
	if err != nil || len(done.UserOpHash) != 66 || len(done.TxHash) != 66 {
		t.Fatalf("an allowed call: %+v %v", done, err)
	}
	_, err = client.SessionOperations(ctx, accessToken, []dauth.SessionCall{allowed, {To: os.Getenv("DAUTH_E2E_SESSION_FORBIDDEN_TO")}})
	var policyErr *dauth.OutsideSessionPolicyError
	if !errors.As(err, &policyErr) || policyErr.StatusCode != 403 || policyErr.CallIndex != 1 || policyErr.Reason == "" {
		t.Fatalf("a batch hiding a forbidden call: %v", err)
	}
}
