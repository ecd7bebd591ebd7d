package dauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// RegisterContentProvider against a loopback stand-in of the service's sign-in, payload_mode and
// init_permission_provider routes. The TypeScript twin runs against a live dauth
// (packages/sdk/test/e2e/providerRegistration.test.ts).

const testOwnerAddr = "0x00000000000000000000000000000000000d0a57"

type providerRequest struct {
	method, path, authorization string
	body                        map[string]any
}

// providerService answers as the service does for an app with (registered) or without a provider;
// refuse, when set, is the error init_permission_provider answers.
func providerService(t *testing.T, registered bool, refuse string) (*httptest.Server, *[]providerRequest) {
	t.Helper()
	var received []providerRequest
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		received = append(received, providerRequest{r.Method, r.URL.Path, r.Header.Get("Authorization"), body})
		switch r.URL.Path {
		case "/v1/dev-user/login_devuser":
			if body["email"] == "dev@example.com" && body["password"] == "right" && body["client_id"] == "c1" {
				reply(w, 200, `{"success":true,"token":"fresh-jwt","uuid":"1"}`)
			} else {
				reply(w, 401, `{"success":false,"error":"invalid_credentials","message":"no"}`)
			}
		case "/v1/development-api/payload_mode":
			if registered {
				reply(w, 200, `{"success":true,"client_id":"c1","payload_mode":"ctr","consume_auth":"none","has_gcm_key":false}`)
			} else {
				reply(w, 404, `{"success":false,"error":"provider_not_registered","message":"not yet"}`)
			}
		case "/v1/development-api/init_permission_provider":
			if refuse != "" {
				reply(w, 401, `{"success":false,"error":"`+refuse+`","message":"refused"}`)
				return
			}
			mode, auth := "ctr", "none"
			if m, ok := body["payload_mode"].(string); ok {
				mode = m
			}
			if a, ok := body["consume_auth"].(string); ok {
				auth = a
			}
			keys := ""
			if !registered {
				keys = fmt.Sprintf(`,"encryption_key":"%s","encryption_iv":"%s","gcm_key":"%s"`,
					strings.Repeat("11", 32), strings.Repeat("22", 16), strings.Repeat("33", 32))
			}
			reply(w, 200, fmt.Sprintf(`{"success":true,"tx_hash":"0xcdcd","payload_mode":"%s","consume_auth":"%s"%s}`, mode, auth, keys))
		default:
			reply(w, 404, `{}`)
		}
	}))
	t.Cleanup(server.Close)
	return server, &received
}

func TestRegisterContentProviderMakesTheFirstProviderGCMWithClientSecret(t *testing.T) {
	server, received := providerService(t, false, "")
	registration, err := RegisterContentProvider(context.Background(), ProviderConfig{
		ClientID: "c1", Cuid: "game-1", ReleasePer: 50, OwnerAddr: testOwnerAddr,
		Email: "dev@example.com", Password: "right", AuthServerURL: server.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	if registration.PayloadMode != PayloadModeGCM || registration.ConsumeAuth != ConsumeAuthClientSecret || registration.TxHash != "0xcdcd" {
		t.Fatalf("registration %+v", *registration)
	}
	if registration.GCMKey != strings.Repeat("33", 32) || registration.EncryptionKey != strings.Repeat("11", 32) || registration.EncryptionIV != strings.Repeat("22", 16) {
		t.Fatal("the keys of the first registration are missing")
	}
	if strings.Contains(fmt.Sprint(*registration), "3333") {
		t.Fatal("String shows the GCM key")
	}
	var calls []string
	for _, r := range *received {
		calls = append(calls, r.method+" "+r.path+" "+r.authorization)
	}
	want := []string{
		"POST /v1/dev-user/login_devuser ",
		"GET /v1/development-api/payload_mode Bearer fresh-jwt",
		"POST /v1/development-api/init_permission_provider Bearer fresh-jwt",
	}
	if !reflect.DeepEqual(calls, want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
	wantBody := map[string]any{
		"client_id": "c1", "cuid": "game-1", "release_per": float64(50), "owner_addr": testOwnerAddr,
		"payload_mode": "gcm", "consume_auth": "client_secret",
	}
	if got := (*received)[2].body; !reflect.DeepEqual(got, wantBody) {
		t.Fatalf("body %v, want %v", got, wantBody)
	}
}

func TestRegisterContentProviderLeavesALaterCuidsSettingsUnlessGiven(t *testing.T) {
	server, received := providerService(t, true, "")
	kept, err := RegisterContentProvider(context.Background(), ProviderConfig{
		ClientID: "c1", Cuid: "game-2", ReleasePer: 10, OwnerAddr: testOwnerAddr, LoginToken: "jwt", AuthServerURL: server.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	if kept.PayloadMode != "ctr" || kept.ConsumeAuth != "none" || kept.GCMKey != "" || kept.EncryptionKey != "" {
		t.Fatalf("kept %+v", *kept)
	}
	last := (*received)[len(*received)-1].body
	if _, ok := last["payload_mode"]; ok {
		t.Fatal("payload_mode sent for a later cuid")
	}
	named, err := RegisterContentProvider(context.Background(), ProviderConfig{
		ClientID: "c1", Cuid: "game-3", ReleasePer: 10, OwnerAddr: testOwnerAddr, LoginToken: "jwt",
		PayloadMode: PayloadModeCTRAndGCM, ConsumeAuth: ConsumeAuthClientSecret, AuthServerURL: server.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	if named.PayloadMode != "ctr+gcm" || named.ConsumeAuth != "client_secret" {
		t.Fatalf("named %+v", *named)
	}
	// Both named: the current settings are not asked for.
	if len(*received) != 3 {
		t.Fatalf("%d requests, want 3", len(*received))
	}
}

func TestRegisterContentProviderRefusals(t *testing.T) {
	stale, _ := providerService(t, false, "reauthentication_required")
	_, err := RegisterContentProvider(context.Background(), ProviderConfig{
		ClientID: "c1", Cuid: "game-1", ReleasePer: 50, OwnerAddr: testOwnerAddr, LoginToken: "old-jwt", AuthServerURL: stale.URL,
	})
	var refused *ProviderRegistrationError
	if !errors.As(err, &refused) || refused.StatusCode != 401 || refused.ErrorCode != "reauthentication_required" {
		t.Fatalf("err %v", err)
	}
	if err.Error() != "provider registration refused (HTTP 401, reauthentication_required): refused" {
		t.Fatalf("message %q", err.Error())
	}
	wrong, received := providerService(t, false, "")
	_, err = RegisterContentProvider(context.Background(), ProviderConfig{
		ClientID: "c1", Cuid: "game-1", ReleasePer: 50, OwnerAddr: testOwnerAddr,
		Email: "dev@example.com", Password: "wrong", AuthServerURL: wrong.URL,
	})
	if !errors.As(err, &refused) || refused.ErrorCode != "invalid_credentials" || len(*received) != 1 {
		t.Fatalf("err %v after %d requests", err, len(*received))
	}
	for _, bad := range []ProviderConfig{
		{Cuid: "g", OwnerAddr: testOwnerAddr, LoginToken: "j"},
		{ClientID: "c", Cuid: "g", ReleasePer: 101, OwnerAddr: testOwnerAddr, LoginToken: "j"},
		{ClientID: "c", Cuid: "g", OwnerAddr: testOwnerAddr, LoginToken: "j", PayloadMode: "ecb"},
		{ClientID: "c", Cuid: "g", OwnerAddr: testOwnerAddr},
		{ClientID: "c", Cuid: "g", OwnerAddr: testOwnerAddr, Email: "e", Password: "p", LoginToken: "j"},
	} {
		bad.AuthServerURL = "http://127.0.0.1:9"
		if _, err := RegisterContentProvider(context.Background(), bad); err == nil {
			t.Fatalf("%+v accepted", bad)
		}
	}
}
