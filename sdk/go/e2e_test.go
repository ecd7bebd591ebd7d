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

	dauth "github.com/dauth/dauth/sdk/go"
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

// balanceOf reads the slot's content-token figures from the public balance route.
func balanceOf(t *testing.T, baseURL, slot, cuid string) (balance, used int64) {
	t.Helper()
	response, err := http.Get(baseURL + "/v1/development-api/balance_adex/" + slot + "?cuid=" + url.QueryEscape(cuid))
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	var body struct {
		Balance      string `json:"balance"`
		UsedBalances string `json:"used_balances"`
	}
	if err := json.NewDecoder(response.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	balance, _ = strconv.ParseInt(body.Balance, 10, 64)
	used, _ = strconv.ParseInt(body.UsedBalances, 10, 64)
	return balance, used
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
	// Through a proxy that holds authorize's answer back while the callback goes out (issue 15).
	delayed, err := dauth.New(dauth.Config{
		ClientID: env.clientID, ClientSecret: env.clientSecret, RedirectURI: env.redirectURI, AuthServerURL: os.Getenv("DAUTH_E2E_DELAYED_URL"),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = delayed.Shutdown(context.Background()) })
	// The registered redirect URI serves both clients: the SDK's own handler for the direct one,
	// and the callbacks it does not know go to the delayed one.
	callbackPath, _ := url.Parse(env.redirectURI)
	mux := http.NewServeMux()
	mux.Handle(callbackPath.Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusOK)
		if callback, ok := dauth.ParseCallback(body); ok && client.HandleCallback(callback) == dauth.CallbackIgnored {
			delayed.HandleCallback(callback)
		}
	}))
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

	t.Run("TheSlotComesBackWhenTheExchangeBeatsADelayedAuthorize", func(t *testing.T) {
		delayMs, _ := strconv.Atoi(os.Getenv("DAUTH_E2E_DELAY_MS"))
		started := time.Now()
		slot, err := delayed.GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: env.jwt})
		if err != nil {
			t.Fatalf("GetSlotInfo through the delaying proxy: %v (HTTP %d), want the slot", err, dauth.HTTPStatus(err))
		}
		if waited := time.Since(started); waited < time.Duration(delayMs-50)*time.Millisecond {
			t.Fatalf("returned after %v: authorize's answer was not delayed", waited)
		}
		if slot.ID.String() != env.slotID {
			t.Fatalf("id = %s, want %s", slot.ID, env.slotID)
		}
		if status, _ := validate(t, env.url, slot.AccessToken); status != http.StatusOK {
			t.Fatalf("validate = %d", status)
		}
	})

	t.Run("AUserWithoutAPINWalletIsWalletRequired409", func(t *testing.T) {
		_, err := client.GetSlotInfo(ctx, dauth.SlotInfoRequest{JWT: os.Getenv("DAUTH_E2E_NO_WALLET_JWT")})
		expectError(t, err, dauth.ErrWalletRequired, http.StatusConflict)
		var authorize *dauth.AuthorizeError
		if !errors.Is(err, dauth.ErrAuthorize) || !errors.As(err, &authorize) || authorize.StatusCode != 409 || authorize.EnvelopeCode != 409 || authorize.Reason != "wallet_required" {
			t.Fatalf("wallet_required: %#v", err)
		}
	})

	t.Run("ConsumptionCTRAndGCMWithAndWithoutClientAuthentication", func(t *testing.T) {
		cuid, slotID := os.Getenv("DAUTH_E2E_CONTENT_CUID"), os.Getenv("DAUTH_E2E_CONTENT_SLOT_ID")
		slotAddress := os.Getenv("DAUTH_E2E_CONTENT_SLOT_ADDRESS")
		base := dauth.ContentConfig{ClientID: os.Getenv("DAUTH_E2E_CONTENT_CLIENT_ID"), AuthServerURL: env.url}
		ctr, gcm := base, base
		ctr.Form, ctr.Key, ctr.IV = dauth.PayloadCTR, os.Getenv("DAUTH_E2E_CONTENT_CTR_KEY"), os.Getenv("DAUTH_E2E_CONTENT_CTR_IV")
		gcm.Form, gcm.Key = dauth.PayloadGCM, os.Getenv("DAUTH_E2E_CONTENT_GCM_KEY")
		for _, config := range []dauth.ContentConfig{ctr, gcm} {
			balance, used := balanceOf(t, env.url, slotAddress, cuid)
			consumer, err := dauth.NewContentConsumer(config)
			if err != nil {
				t.Fatal(err)
			}
			first, err := consumer.Record(ctx, dauth.Consumption{UserDBKey: slotID, Amount: "7", Cuid: cuid, RequestID: "go-" + string(config.Form)})
			if err != nil {
				t.Fatalf("%s: %v", config.Form, err)
			}
			if first.Status != "included" || first.UserDBKey != slotID || first.Amount != "7" ||
				first.Balance != strconv.FormatInt(balance-7, 10) || first.UsedBalances != strconv.FormatInt(used+7, 10) ||
				!regexp.MustCompile(`^0x[0-9a-f]{64}$`).MatchString(first.TxHash) {
				t.Fatalf("%s: %+v (before: %d, %d)", config.Form, first, balance, used)
			}
			authenticatedConfig := config
			authenticatedConfig.ClientSecret = os.Getenv("DAUTH_E2E_CONTENT_CLIENT_SECRET")
			authenticated, _ := dauth.NewContentConsumer(authenticatedConfig)
			second, err := authenticated.Record(ctx, dauth.Consumption{UserDBKey: slotID, Amount: "3", Cuid: cuid})
			if err != nil || second.UsedBalances != strconv.FormatInt(used+10, 10) {
				t.Fatalf("%s with client authentication: %+v, %v", config.Form, second, err)
			}
			_, err = consumer.Record(ctx, dauth.Consumption{UserDBKey: slotID, Amount: "999999999", Cuid: cuid})
			var refused *dauth.ConsumptionError
			if !errors.As(err, &refused) || refused.StatusCode != 409 || refused.ErrorCode != "insufficient_balance" {
				t.Fatalf("%s over the balance: %v", config.Form, err)
			}
			wrongConfig := config
			wrongConfig.Key = strings.Repeat("ab", 32)
			wrong, _ := dauth.NewContentConsumer(wrongConfig)
			_, err = wrong.Record(ctx, dauth.Consumption{UserDBKey: slotID, Amount: "1", Cuid: cuid})
			if !errors.As(err, &refused) || refused.StatusCode != 401 || refused.ErrorCode != "invalid_payload" {
				t.Fatalf("%s under a wrong key: %v", config.Form, err)
			}
			if b, u := balanceOf(t, env.url, slotAddress, cuid); b != balance-10 || u != used+10 {
				t.Fatalf("%s: balance %d, used %d after; want %d, %d", config.Form, b, u, balance-10, used+10)
			}
		}
	})

	t.Run("RegisterContentProviderIsGCMWithClientSecretForTheFirstCuid", func(t *testing.T) {
		config := dauth.ProviderConfig{
			ClientID: os.Getenv("DAUTH_E2E_PROVIDER_CLIENT_ID"), ReleasePer: 50,
			OwnerAddr: "0x00000000000000000000000000000000000b0b0b", AuthServerURL: env.url,
			Email: os.Getenv("DAUTH_E2E_PROVIDER_EMAIL"), Password: os.Getenv("DAUTH_E2E_PROVIDER_PASSWORD"),
		}
		if config.ClientID == "" || config.Email == "" || config.Password == "" {
			t.Fatal("DAUTH_E2E_PROVIDER_CLIENT_ID, _EMAIL and _PASSWORD must be set with DAUTH_E2E_URL")
		}
		config.Cuid = "go-e2e-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		first, err := dauth.RegisterContentProvider(ctx, config)
		if err != nil {
			t.Fatal(err)
		}
		hex64 := regexp.MustCompile(`^[0-9a-f]{64}$`)
		if first.PayloadMode != "gcm" || first.ConsumeAuth != "client_secret" || !regexp.MustCompile(`^0x[0-9a-f]{64}$`).MatchString(first.TxHash) ||
			!hex64.MatchString(first.GCMKey) || !hex64.MatchString(first.EncryptionKey) || len(first.EncryptionIV) != 32 {
			t.Fatalf("first registration: %v", *first)
		}
		// A later cuid keeps the app's settings and issues no keys.
		later := config
		later.Cuid += "-2"
		second, err := dauth.RegisterContentProvider(ctx, later)
		if err != nil || second.PayloadMode != "gcm" || second.ConsumeAuth != "client_secret" || second.GCMKey != "" || second.EncryptionKey != "" {
			t.Fatalf("second registration: %+v, %v", second, err)
		}
		// Someone else's login JWT: refused, nothing registered.
		stranger := config
		stranger.Cuid += "-3"
		stranger.Email, stranger.Password, stranger.LoginToken = "", "", env.jwt
		_, err = dauth.RegisterContentProvider(ctx, stranger)
		var refused *dauth.ProviderRegistrationError
		if !errors.As(err, &refused) || refused.StatusCode != 403 || refused.ErrorCode != "not_client_owner" {
			t.Fatalf("another account: %v", err)
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
