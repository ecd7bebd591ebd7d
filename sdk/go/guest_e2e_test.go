package dauth_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"testing"

	dauth "github.com/dauth/dauth/sdk/go"
)

// Guest create, login and upgrade against a live dauth. packages/sdk/test/e2e/guests.test.ts starts
// the server, registers an app and runs `go test -run GuestE2E ./...` with DAUTH_E2E_URL,
// DAUTH_E2E_CLIENT_ID, DAUTH_E2E_CLIENT_SECRET and DAUTH_E2E_REDIRECT_URI. Without DAUTH_E2E_URL it skips.
func TestGuestE2E(t *testing.T) {
	if os.Getenv("DAUTH_E2E_URL") == "" {
		t.Skip("DAUTH_E2E_URL is not set (packages/sdk/test/e2e/guests.test.ts sets it)")
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
	guest, err := client.CreateGuest(ctx)
	if err != nil {
		t.Fatalf("CreateGuest: %v", err)
	}
	if len(guest.GuestSecret) != 43 {
		t.Fatalf("guest secret of %d characters", len(guest.GuestSecret))
	}
	session, err := client.GuestLogin(ctx, guest.UUID, guest.GuestSecret)
	if err != nil || session.UUID != guest.UUID {
		t.Fatalf("GuestLogin: %v %+v", err, session)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	uuid, err := client.UpgradeGuest(ctx, session.Token, dauth.GuestUpgrade{
		Email:    "go-" + hex.EncodeToString(suffix) + "@example.com",
		Password: "correct horse battery",
	})
	if err != nil || uuid != guest.UUID {
		t.Fatalf("UpgradeGuest: %v %q", err, uuid)
	}
	_, err = client.GuestLogin(ctx, guest.UUID, guest.GuestSecret)
	var guestErr *dauth.GuestError
	if !errors.As(err, &guestErr) || guestErr.StatusCode != 401 || guestErr.ErrorCode != "invalid_credentials" {
		t.Fatalf("the guest secret after the upgrade: %v", err)
	}
}
