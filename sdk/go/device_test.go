package dauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"
)

// scriptedDevice answers /oauth/device_authorization once, then /oauth/token from polls in order.
type scriptedDevice struct {
	mu       sync.Mutex
	polls    []scriptedAnswer
	requests []recordedDeviceRequest
}

type scriptedAnswer struct {
	status int
	body   map[string]any
}

type recordedDeviceRequest struct {
	path          string
	authorization string
	body          map[string]string
}

func startScriptedDevice(t *testing.T, polls ...scriptedAnswer) (*scriptedDevice, *Client) {
	t.Helper()
	script := &scriptedDevice{polls: polls}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]string
		_ = json.Unmarshal(raw, &body)
		script.mu.Lock()
		script.requests = append(script.requests, recordedDeviceRequest{r.URL.Path, r.Header.Get("Authorization"), body})
		answer := scriptedAnswer{http.StatusOK, map[string]any{
			"device_code": "dc-1", "user_code": "BCDF-GHJK", "verification_uri": "http://dauth.test/device",
			"verification_uri_complete": "http://dauth.test/device?user_code=BCDF-GHJK", "expires_in": 600, "interval": 2,
		}}
		if r.URL.Path == "/oauth/token" {
			answer, script.polls = script.polls[0], script.polls[1:]
		}
		script.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(answer.status)
		_ = json.NewEncoder(w).Encode(answer.body)
	}))
	t.Cleanup(server.Close)
	client, err := New(Config{ClientID: "launcher", ClientSecret: "s3cret", RedirectURI: "http://127.0.0.1:1/cb", AuthServerURL: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	return script, client
}

func recordWaits(client *Client) *[]time.Duration {
	waits := &[]time.Duration{}
	client.deviceSleep = func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	}
	return waits
}

var (
	pendingAnswer = scriptedAnswer{400, map[string]any{"error": "authorization_pending", "error_description": "keep polling"}}
	tokensAnswer  = scriptedAnswer{200, map[string]any{
		"success": true, "access_token": "at", "token_type": "Bearer", "expires_in": 3600,
		"user_id": "42", "refresh_token": "rt", "id_token": "h.p.s",
	}}
)

func slowDownAnswer(interval int) scriptedAnswer {
	return scriptedAnswer{400, map[string]any{"error": "slow_down", "interval": interval, "error_description": "slow"}}
}

func TestDeviceFlowPollsWhilePendingAndReturnsTheTokens(t *testing.T) {
	script, client := startScriptedDevice(t, pendingAnswer, pendingAnswer, tokensAnswer)
	waits := recordWaits(client)
	started, err := client.StartDeviceAuthorization(context.Background(), "openid")
	if err != nil || started.UserCode != "BCDF-GHJK" || started.Interval != 2 || started.ExpiresIn != 600 {
		t.Fatalf("started %+v, err %v", started, err)
	}
	tokens, err := client.PollDeviceToken(context.Background(), started)
	if err != nil || tokens.AccessToken != "at" || tokens.RefreshToken != "rt" || tokens.IDToken != "h.p.s" {
		t.Fatalf("tokens %+v, err %v", tokens, err)
	}
	if want := []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second}; !reflect.DeepEqual(*waits, want) {
		t.Fatalf("waits %v, want %v", *waits, want)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("launcher:s3cret"))
	first, poll := script.requests[0], script.requests[1]
	if first.body["scope"] != "openid" || first.authorization != basic {
		t.Fatalf("device authorization request %+v", first)
	}
	if poll.path != "/oauth/token" || poll.authorization != basic || poll.body["grant_type"] != DeviceCodeGrantType || poll.body["device_code"] != "dc-1" {
		t.Fatalf("poll %+v", poll)
	}
}

func TestDeviceFlowSlowDownAddsFiveSecondsForEveryLaterPoll(t *testing.T) {
	_, client := startScriptedDevice(t, pendingAnswer, slowDownAnswer(7), pendingAnswer, slowDownAnswer(12), tokensAnswer)
	waits := recordWaits(client)
	tokens, err := client.PollDeviceToken(context.Background(), &DeviceAuthorization{DeviceCode: "dc-1", Interval: 2})
	if err != nil || tokens.UserID != "42" {
		t.Fatalf("tokens %+v, err %v", tokens, err)
	}
	want := []time.Duration{2 * time.Second, 2 * time.Second, 7 * time.Second, 7 * time.Second, 12 * time.Second}
	if !reflect.DeepEqual(*waits, want) {
		t.Fatalf("waits %v, want %v", *waits, want)
	}
}

func TestDeviceFlowDeniedAndExpiredAreDeviceFlowErrors(t *testing.T) {
	for _, code := range []string{"access_denied", "expired_token"} {
		_, client := startScriptedDevice(t, pendingAnswer, scriptedAnswer{400, map[string]any{"error": code, "error_description": code}})
		recordWaits(client)
		_, err := client.PollDeviceToken(context.Background(), &DeviceAuthorization{DeviceCode: "dc-1", Interval: 1})
		var flowError *DeviceFlowError
		if !errors.As(err, &flowError) || flowError.ErrorCode != code || flowError.StatusCode != 400 {
			t.Fatalf("%s: err %v", code, err)
		}
	}
}

func TestDeviceFlowStopsWhenTheContextEnds(t *testing.T) {
	_, client := startScriptedDevice(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := client.PollDeviceToken(ctx, &DeviceAuthorization{DeviceCode: "dc-1", Interval: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}
