package dauth_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"

	dauth "github.com/dauth/dauth/sdk/go"
)

// VerifyWebhook on a delivery a live dauth sent. packages/sdk/test/e2e/liveWebhooks.test.ts has dauth
// deliver grant.created to a receiver and runs `go test -run WebhookLive ./...` with DAUTH_E2E_HOOK_FILE
// (the delivery's headers and raw body), DAUTH_E2E_HOOK_SECRET, DAUTH_E2E_HOOK_CLIENT_ID and
// DAUTH_E2E_HOOK_USER_ID. Without DAUTH_E2E_HOOK_FILE it skips.
func TestWebhookLive(t *testing.T) {
	path := os.Getenv("DAUTH_E2E_HOOK_FILE")
	if path == "" || os.Getenv("DAUTH_E2E_URL") == "" {
		t.Skip("DAUTH_E2E_HOOK_FILE is not set (packages/sdk/test/e2e/liveWebhooks.test.ts sets it)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var delivery struct {
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	if err := json.Unmarshal(raw, &delivery); err != nil {
		t.Fatal(err)
	}
	header := http.Header{}
	for name, value := range delivery.Headers {
		header.Set(name, value)
	}
	secret := os.Getenv("DAUTH_E2E_HOOK_SECRET")
	event, err := dauth.VerifyWebhook([]byte(delivery.Body), header, secret)
	if err != nil {
		t.Fatalf("a live delivery was refused: %v", err)
	}
	if event.Type != "grant.created" || event.ID != delivery.Headers["Webhook-Id"] ||
		event.Data["client_id"] != os.Getenv("DAUTH_E2E_HOOK_CLIENT_ID") || event.Data["user_id"] != os.Getenv("DAUTH_E2E_HOOK_USER_ID") {
		t.Fatalf("event %+v", event)
	}
	changed := strings.Replace(delivery.Body, "grant.created", "grant.revoked", 1)
	if _, err := dauth.VerifyWebhook([]byte(changed), header, secret); !errors.Is(err, dauth.ErrWebhookVerification) {
		t.Fatalf("a changed body: %v", err)
	}
}
