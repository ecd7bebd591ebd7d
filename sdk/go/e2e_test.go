package dauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dauth "github.com/dauth/sdk-go"
)

// End-to-end: the SDK against a live dauth, with the SDK's own CallbackHandler on a real port.
// packages/sdk/test/e2e/liveServer.test.ts (npm test) starts the server, registers the app and the
// user, and runs `go test -run E2E ./...` with the DAUTH_E2E_* variables below. Without
// DAUTH_E2E_URL the test skips, so sdk/test.sh alone still passes.

type e2eEnv struct {
	url, userID, jwt, expiredJWT, nickname           string
	clientID, clientSecret, redirectURI              string
	slotID, contentAddress                           string
	getOnlyClientID, getOnlyClientSecret, getOnlyURI string
	timeout                                          time.Duration
}

func loadE2EEnv(t *testing.T) e2eEnv {
	t.Helper()
	if os.Getenv("DAUTH_E2E_URL") == "" {
		t.Skip("DAUTH_E2E_URL is not set (packages/sdk/test/e2e/liveServer.test.ts sets it)")
	}
	// With DAUTH_E2E_URL set, a missing variable is a failure, not a skip.
	get := func(name string) string {
		value := os.Getenv(name)
		if value == "" {
			t.Fatalf("%s must be set with DAUTH_E2E_URL", name)
		}
		return value
	}
	timeoutMs, err := strconv.Atoi(get("DAUTH_E2E_TIMEOUT_MS"))
	if err != nil || timeoutMs <= 0 {
		t.Fatalf("DAUTH_E2E_TIMEOUT_MS must be a positive integer")
	}
	return e2eEnv{
		url: get("DAUTH_E2E_URL"), userID: get("DAUTH_E2E_USER_ID"), jwt: get("DAUTH_E2E_JWT"),
		expiredJWT: get("DAUTH_E2E_EXPIRED_JWT"), nickname: get("DAUTH_E2E_NICKNAME"),
		clientID: get("DAUTH_E2E_CLIENT_ID"), clientSecret: get("DAUTH_E2E_CLIENT_SECRET"),
		redirectURI: get("DAUTH_E2E_REDIRECT_URI"),
		slotID:      get("DAUTH_E2E_SLOT_ID"), contentAddress: get("DAUTH_E2E_CONTENT_ADDRESS"),
		getOnlyClientID: get("DAUTH_E2E_GET_ONLY_CLIENT_ID"), getOnlyClientSecret: get("DAUTH_E2E_GET_ONLY_CLIENT_SECRET"),
		getOnlyURI: get("DAUTH_E2E_GET_ONLY_URI"),
		timeout:    time.Duration(timeoutMs) * time.Millisecond,
	}
}

// listenAt serves handler on the host and port of uri until the test ends.
func listenAt(t *testing.T, uri string, handler http.Handler) {
	t.Helper()
	parsed, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", parsed.Host)
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
}

// getOnlyRoute knows only GET: the service's callback POST is answered 405.
type getOnlyRoute struct {
	mu    sync.Mutex
	posts []int
}

func (g *getOnlyRoute) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w.WriteHeader(http.StatusOK)
		return
	}
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Allow", http.MethodGet)
	w.WriteHeader(http.StatusMethodNotAllowed)
	if r.Method == http.MethodPost {
		g.mu.Lock()
		g.posts = append(g.posts, http.StatusMethodNotAllowed)
		g.mu.Unlock()
	}
}

func (g *getOnlyRoute) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.posts)
}

func (g *getOnlyRoute) waitForPosts(t *testing.T, count int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for g.count() < count {
		if time.Now().After(deadline) {
			t.Fatalf("the GET-only route got %d POSTs, expected %d", g.count(), count)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// validate calls GET /v1/oauth/validate, the spec's test of a live token (2xx).
func validate(t *testing.T, baseURL, token string) (int, map[string]any) {
	t.Helper()
	request, _ := http.NewRequest(http.MethodGet, baseURL+"/v1/oauth/validate", nil)
	request.Header.Set("Authorization", "Bearer "+token)
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(response.Body).Decode(&body)
	return response.StatusCode, body
}

// forged changes the first character of the JWT's signature: well-formed, but not signed.
func forged(jwt string) string {
	parts := strings.Split(jwt, ".")
	first := "A"
	if strings.HasPrefix(parts[2], "A") {
		first = "B"
	}
	parts[2] = first + parts[2][1:]
	return strings.Join(parts, ".")
}

func expectError(t *testing.T, err error, target error, status int) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
	if got := dauth.HTTPStatus(err); got != status {
		t.Fatalf("HTTPStatus(%v) = %d, want %d", err, got, status)
	}
}

func TestE2ELiveServer(t *testing.T) {
	env := loadE2EEnv(t)
	ctx := context.Background()
	client, err := dauth.New(dauth.Config{
		ClientID: env.clientID, ClientSecret: env.clientSecret, RedirectURI: env.redirectURI, AuthServerURL: env.url,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Shutdown(context.Background()) })
	// The SDK's own handler serves the registered redirect URI.
	callbackPath, _ := url.Parse(env.redirectURI)
	mux := http.NewServeMux()
	mux.Handle(callbackPath.Path, client.CallbackHandler())
	listenAt(t, env.redirectURI, mux)
	getOnly := &getOnlyRoute{}
	listenAt(t, env.getOnlyURI, getOnly)
	getOnlyClient := func(t *testing.T) *dauth.Client {
		made, err := dauth.New(dauth.Config{
			ClientID: env.getOnlyClientID, ClientSecret: env.getOnlyClientSecret, RedirectURI: env.getOnlyURI, AuthServerURL: env.url,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = made.Shutdown(context.Background()) })
		return made
	}

	t.Run("SlotInfoExactIDSecondCallRefreshLogout", func(t *testing.T) {
		first, err := client.GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: env.jwt})
		if err != nil {
			t.Fatal(err)
		}
		// 19 digits, above 2^63 for some ids: the id the service recorded, digit for digit.
		if first.ID.String() != env.slotID || first.ID.Kind() != dauth.SlotIDNumber || !regexp.MustCompile(`^[1-9]\d{18}$`).MatchString(first.ID.String()) {
			t.Fatalf("id = %s (%s), want the number %s", first.ID, first.ID.Kind(), env.slotID)
		}
		if first.ID.BigInt().String() != env.slotID {
			t.Fatalf("BigInt() = %s, want %s", first.ID.BigInt(), env.slotID)
		}
		if first.ContentAddress != env.contentAddress || first.TokenNickname != env.nickname || first.TrCnt != 0 || first.ExpiresIn != 3600 {
			t.Fatalf("slot = %+v", first)
		}
		if !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(first.Code) || first.RefreshToken == "" {
			t.Fatalf("code %q, refresh token present: %v", first.Code, first.RefreshToken != "")
		}
		status, body := validate(t, env.url, first.AccessToken)
		if status != http.StatusOK || body["user_id"] != env.userID || body["client_id"] != env.clientID {
			t.Fatalf("validate = %d %v", status, body)
		}

		second, err := client.GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: env.jwt})
		if err != nil {
			t.Fatal(err)
		}
		if second.ID != first.ID || second.AccessToken == first.AccessToken {
			t.Fatalf("second call: id %s, same token: %v", second.ID, second.AccessToken == first.AccessToken)
		}

		refreshed, err := client.Refresh(ctx, first.RefreshToken)
		if err != nil {
			t.Fatal(err)
		}
		if refreshed.ID != first.ID || refreshed.AccessToken == first.AccessToken || refreshed.RefreshToken == first.RefreshToken {
			t.Fatalf("refresh: id %s, the pair rotated: %v", refreshed.ID, refreshed.AccessToken != first.AccessToken && refreshed.RefreshToken != first.RefreshToken)
		}
		if status, _ := validate(t, env.url, refreshed.AccessToken); status != http.StatusOK {
			t.Fatalf("refreshed token: validate = %d", status)
		}

		if err := client.Logout(ctx, refreshed.AccessToken); err != nil {
			t.Fatal(err)
		}
		if status, _ := validate(t, env.url, refreshed.AccessToken); status != http.StatusUnauthorized {
			t.Fatalf("after logout: validate = %d, want 401", status)
		}
		_, err = client.Refresh(ctx, refreshed.RefreshToken)
		var envelope *dauth.EnvelopeError
		if !errors.As(err, &envelope) || envelope.Code != 510 {
			t.Fatalf("revoked refresh token: %v, want envelope code 510", err)
		}
		// Only that pair: the second call's token still works.
		if status, _ := validate(t, env.url, second.AccessToken); status != http.StatusOK {
			t.Fatalf("second call's token: validate = %d", status)
		}
	})

	t.Run("StatusReportsAreReflectedByTheCheck", func(t *testing.T) {
		slot, err := client.GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: env.jwt})
		if err != nil {
			t.Fatal(err)
		}
		if report := client.ReportLogin(ctx, slot.AccessToken, env.userID); !report.OK || report.Status.Status != "logged_in" {
			t.Fatalf("report login: %+v", report)
		}
		if checked, err := client.CheckStatus(ctx, slot.AccessToken, env.userID); err != nil || checked.Status != "logged_in" {
			t.Fatalf("check after login: %+v, %v", checked, err)
		}
		if report := client.ReportLogout(ctx, slot.AccessToken, env.userID); !report.OK || report.Status.Status != "logged_out" {
			t.Fatalf("report logout: %+v", report)
		}
		checked, err := client.CheckStatus(ctx, slot.AccessToken, env.userID)
		if err != nil || checked.Status != "logged_out" || checked.TransferEnabled == nil || !*checked.TransferEnabled {
			t.Fatalf("check after logout: %+v, %v", checked, err)
		}
	})

	t.Run("ExpiredJWTIs401InvalidIs502", func(t *testing.T) {
		_, err := client.GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: env.expiredJWT})
		expectError(t, err, dauth.ErrExpiredToken, http.StatusUnauthorized)
		_, err = client.GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: forged(env.jwt)})
		expectError(t, err, dauth.ErrAuthorize, http.StatusBadGateway)
		var authorize *dauth.AuthorizeError
		if !errors.As(err, &authorize) || authorize.StatusCode != http.StatusUnauthorized || authorize.EnvelopeCode != 401 {
			t.Fatalf("invalid JWT: %#v", err)
		}
	})

	t.Run("GetOnlyCallbackRouteTimesOut408", func(t *testing.T) {
		before := getOnly.count()
		started := time.Now()
		_, err := getOnlyClient(t).GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: env.jwt, Timeout: env.timeout})
		waited := time.Since(started)
		expectError(t, err, dauth.ErrCallbackTimeout, http.StatusRequestTimeout)
		if err.Error() != "authorize callback timeout" {
			t.Fatalf("message %q", err.Error())
		}
		// Well below the 15 s default: the call's own timeout ended it.
		if waited < env.timeout-50*time.Millisecond || waited > env.timeout+3*time.Second {
			t.Fatalf("waited %v for a timeout of %v", waited, env.timeout)
		}
		// The service sent the callback once, and the route refused it.
		if got := getOnly.count() - before; got != 1 {
			t.Fatalf("the GET-only route got %d POSTs, want 1", got)
		}
	})

	t.Run("ContextDeadlineIs504", func(t *testing.T) {
		// The Go row of the spec's table: the caller's deadline passes before the callback wait.
		deadline, cancel := context.WithTimeout(ctx, env.timeout)
		defer cancel()
		_, err := getOnlyClient(t).GetSlotInfo(deadline, dauth.SlotInfoRequest{JWT: env.jwt, Timeout: 30 * time.Second})
		expectError(t, err, context.DeadlineExceeded, http.StatusGatewayTimeout)
	})

	t.Run("ShutdownFailsAPendingCall503", func(t *testing.T) {
		closing := getOnlyClient(t)
		before := getOnly.count()
		result := make(chan error, 1)
		go func() {
			_, err := closing.GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: env.jwt, Timeout: 30 * time.Second})
			result <- err
		}()
		// Authorize accepted and the callback refused: the call now only waits.
		getOnly.waitForPosts(t, before+1)
		started := time.Now()
		if err := closing.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-result:
			expectError(t, err, dauth.ErrShutdown, http.StatusServiceUnavailable)
		case <-time.After(5 * time.Second):
			t.Fatal("the pending call did not end on shutdown")
		}
		if elapsed := time.Since(started); elapsed > 2*time.Second {
			t.Fatalf("the pending call ended %v after shutdown", elapsed)
		}
		_, err := closing.GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: env.jwt})
		expectError(t, err, dauth.ErrShutdown, http.StatusServiceUnavailable)
		if got := getOnly.count(); got != before+1 {
			t.Fatalf("the GET-only route got %d POSTs after shutdown", got-before-1)
		}
	})
}
