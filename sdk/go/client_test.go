package dauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

type setup struct {
	client *Client
	dauth  *fakeDauth
	app    *httptest.Server
}

// newSetup starts the fake service and an app serving the client's CallbackHandler.
func newSetup(t *testing.T, configure func(*fakeDauth), secret string) *setup {
	t.Helper()
	s := &setup{}
	mux := http.NewServeMux()
	// The handler needs the client and the client needs the app's URL; resolved at request time.
	mux.Handle("/dauth/callback", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.client.CallbackHandler().ServeHTTP(w, r)
	}))
	s.app = httptest.NewServer(mux)
	t.Cleanup(s.app.Close)
	redirectURI := s.app.URL + "/dauth/callback"
	s.dauth = startFakeDauth(t, redirectURI)
	if configure != nil {
		s.dauth.set(configure)
	}
	if secret == "" {
		secret = "secret-1"
	}
	client, err := New(Config{ClientID: "client-1", ClientSecret: secret, RedirectURI: redirectURI, AuthServerURL: s.dauth.server.URL})
	if err != nil {
		t.Fatal(err)
	}
	s.client = client
	t.Cleanup(func() { _ = client.Shutdown(context.Background()) })
	return s
}

func (s *setup) firstState(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(s.dauth.requestsTo("/v1/oauth-meta/authorize")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no authorize request")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return s.dauth.requestsTo("/v1/oauth-meta/authorize")[0].query.Get("state")
}

func expectStatus(t *testing.T, err error, target error, status int) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
	if got := HTTPStatus(err); got != status {
		t.Fatalf("HTTPStatus(%v) = %d, want %d", err, got, status)
	}
}

func TestGetSlotInfoReturnsTheSlotWithItsIDExact(t *testing.T) {
	s := newSetup(t, nil, "")
	slot, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
	if err != nil {
		t.Fatal(err)
	}
	if slot.ID.String() != "1234567890123456789" || slot.ID.Kind() != SlotIDNumber {
		t.Fatalf("id = %s (%s)", slot.ID, slot.ID.Kind())
	}
	if slot.AccessToken != "at-code-1" || slot.RefreshToken != "rt-1" || slot.ExpiresIn != 3600 || slot.Code != "code-1" {
		t.Fatalf("slot = %+v", slot)
	}
	authorize := s.dauth.requestsTo("/v1/oauth-meta/authorize")[0]
	if authorize.authorization != "Bearer user-jwt" || authorize.query.Get("respose_type") != "code" || authorize.query.Has("response_type") {
		t.Fatalf("authorize request = %+v", authorize)
	}
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(authorize.query.Get("state")) {
		t.Fatalf("state %q is not 32 random bytes in base64url", authorize.query.Get("state"))
	}
	var token map[string]string
	_ = json.Unmarshal(s.dauth.requestsTo("/v1/oauth-meta/get_token")[0].body, &token)
	want := map[string]string{"client_id": "client-1", "client_secret": "secret-1", "grant_type": "authorization_code", "code": "code-1"}
	if fmt.Sprint(token) != fmt.Sprint(want) {
		t.Fatalf("get_token body = %v, want %v", token, want)
	}
	if status := s.dauth.nextCallbackStatus(t); status != 200 {
		t.Fatalf("callback answered %d", status)
	}
}

func TestGetSlotInfoKeepsAnImportedIDAsAString(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.slotIDJSON = `"9223372036854775808"` }, "")
	slot, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
	if err != nil || slot.ID.String() != "9223372036854775808" || slot.ID.Kind() != SlotIDString {
		t.Fatalf("slot %+v, err %v", slot, err)
	}
}

func TestGetSlotInfoMatchesConcurrentCallsByState(t *testing.T) {
	s := newSetup(t, nil, "")
	var wg sync.WaitGroup
	codes := make(chan string, 5)
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slot, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
			if err != nil {
				t.Error(err)
				return
			}
			codes <- slot.Code
		}()
	}
	wg.Wait()
	close(codes)
	seen := map[string]bool{}
	for code := range codes {
		seen[code] = true
	}
	if len(seen) != 5 {
		t.Fatalf("%d distinct codes, want 5", len(seen))
	}
}

func TestCallbackIsAnsweredBeforeTheExchangeFinishes(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.tokenDelay = 400 * time.Millisecond }, "")
	done := make(chan error, 1)
	go func() {
		_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
		done <- err
	}()
	if status := s.dauth.nextCallbackStatus(t); status != 200 {
		t.Fatalf("callback answered %d", status)
	}
	// Had the handler waited for the exchange, the call would have ended before its answer.
	select {
	case err := <-done:
		t.Fatalf("the call ended (%v) before the callback was answered", err)
	default:
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The defect of issue 15: the callback and its exchange completed while authorize's own answer was
// still delayed, and GetSlotInfo cancelled that request on success and returned context.Canceled (499).
func TestGetSlotInfoReturnsTheSlotWhenTheExchangeBeatsAuthorizesAnswer(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.authorizeDelay = 1500 * time.Millisecond }, "")
	started := time.Now()
	slot, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
	if err != nil {
		t.Fatalf("GetSlotInfo: %v (HTTP %d), want the slot", err, HTTPStatus(err))
	}
	if slot.AccessToken != "at-code-1" || slot.ID.String() != "1234567890123456789" {
		t.Fatalf("slot = %+v", slot)
	}
	s.dauth.mu.Lock()
	tokenAt, authorizeAt := s.dauth.tokenAnsweredAt, s.dauth.authorizeAnsweredAt
	s.dauth.mu.Unlock()
	// The race really happened: get_token answered first, authorize about 1.5 s later.
	if tokenAt.IsZero() || authorizeAt.Sub(tokenAt) < 1400*time.Millisecond {
		t.Fatalf("get_token answered at %v, authorize at %v", tokenAt, authorizeAt)
	}
	if elapsed := time.Since(started); elapsed < 1400*time.Millisecond {
		t.Fatalf("returned after %v, before authorize's answer", elapsed)
	}
}

func TestAUserWithoutAPINWalletIsWalletRequired409(t *testing.T) {
	s := newSetup(t, nil, "")
	_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "no-wallet-jwt"})
	expectStatus(t, err, ErrWalletRequired, http.StatusConflict)
	var authorize *AuthorizeError
	if !errors.Is(err, ErrAuthorize) || !errors.As(err, &authorize) || authorize.StatusCode != 409 || authorize.EnvelopeCode != 409 {
		t.Fatalf("wallet_required: %#v", err)
	}
	if err.Error() != "AUTHORIZE_ERROR: wallet_required" {
		t.Fatalf("message %q", err.Error())
	}
	if len(s.dauth.requestsTo("/v1/oauth-meta/get_token")) != 0 {
		t.Fatal("a code was exchanged")
	}
}

func TestGetSlotInfoTimesOutWithoutACallback(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.callback = "none" }, "")
	started := time.Now()
	_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt", Timeout: 300 * time.Millisecond})
	expectStatus(t, err, ErrCallbackTimeout, 408)
	if err.Error() != "authorize callback timeout" || time.Since(started) < 290*time.Millisecond {
		t.Fatalf("error %q after %v", err, time.Since(started))
	}
}

func TestGetOnlyCallbackRouteTimesOut(t *testing.T) {
	// The mistake under test: the callback route only answers GET, so the service's POST gets 405.
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	defer app.Close()
	dauth := startFakeDauth(t, app.URL+"/dauth/callback")
	client, _ := New(Config{ClientID: "client-1", ClientSecret: "secret-1", RedirectURI: app.URL + "/dauth/callback", AuthServerURL: dauth.server.URL})
	_, err := client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt", Timeout: 500 * time.Millisecond})
	expectStatus(t, err, ErrCallbackTimeout, 408)
	if status := dauth.nextCallbackStatus(t); status != 405 {
		t.Fatalf("callback answered %d, want 405", status)
	}
	if len(dauth.requestsTo("/v1/oauth-meta/get_token")) != 0 {
		t.Fatal("a code was exchanged")
	}
}

func TestUnknownStateIsIgnoredAndTheCallTimesOut(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.callback = "none" }, "")
	done := make(chan error, 1)
	go func() {
		_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt", Timeout: 500 * time.Millisecond})
		done <- err
	}()
	s.firstState(t)
	answer, err := http.Post(s.app.URL+"/dauth/callback", "application/json", strings.NewReader(`{"success":1,"code":"stolen","state":"not-pending"}`))
	if err != nil || answer.StatusCode != 200 {
		t.Fatalf("callback answer %v, %v", answer, err)
	}
	answer.Body.Close()
	if outcome := s.client.HandleCallback(Callback{State: "other", Success: true, Code: "x"}); outcome != CallbackIgnored {
		t.Fatalf("outcome %s", outcome)
	}
	expectStatus(t, <-done, ErrCallbackTimeout, 408)
	if len(s.dauth.requestsTo("/v1/oauth-meta/get_token")) != 0 {
		t.Fatal("a code was exchanged")
	}
}

func TestReplayedCallbackCannotChangeTheOutcome(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.callback = "none" }, "")
	done := make(chan error, 1)
	go func() {
		_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
		done <- err
	}()
	state := s.firstState(t)
	if outcome := s.client.HandleCallback(Callback{State: state, Success: true, Code: "never-issued"}); outcome != CallbackExchanging {
		t.Fatalf("first outcome %s", outcome)
	}
	if outcome := s.client.HandleCallback(Callback{State: state, Success: false}); outcome != CallbackIgnored {
		t.Fatalf("replay outcome %s", outcome)
	}
	var envelopeError *EnvelopeError
	if err := <-done; !errors.As(err, &envelopeError) || envelopeError.Code != 570 {
		t.Fatalf("error %v, want code 570", err)
	}
}

func TestRejectedCallback(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.callback = "reject" }, "")
	_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
	expectStatus(t, err, ErrCallbackRejected, 502)
}

func TestExpiredJWT(t *testing.T) {
	s := newSetup(t, nil, "")
	_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "expired-jwt"})
	expectStatus(t, err, ErrExpiredToken, 401)
}

func TestRedirectURIMismatch(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.redirectURI = "http://127.0.0.1:1/registered/" }, "")
	_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
	expectStatus(t, err, ErrAuthorize, 502)
	var authorizeError *AuthorizeError
	if !errors.As(err, &authorizeError) || authorizeError.Reason != "redirect_uri mismatch" || authorizeError.StatusCode != 401 || authorizeError.EnvelopeCode != 401 {
		t.Fatalf("error %+v", err)
	}
}

func TestUnreachableService(t *testing.T) {
	listener, _ := net.Listen("tcp", "127.0.0.1:0")
	address := listener.Addr().String()
	listener.Close()
	client, _ := New(Config{ClientID: "c", ClientSecret: "s", RedirectURI: "http://127.0.0.1:1/cb", AuthServerURL: "http://" + address})
	_, err := client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
	expectStatus(t, err, ErrAuthorize, 502)
}

func TestEnvelopeCodesFromGetToken(t *testing.T) {
	for _, c := range []struct {
		code    int
		message string
	}{{410, "client mismatch"}, {510, "code expired"}, {570, "unregistered"}} {
		c := c
		t.Run(fmt.Sprint(c.code), func(t *testing.T) {
			s := newSetup(t, func(f *fakeDauth) {
				f.tokenResponse = &fakeAnswer{200, fmt.Sprintf(`{"code":%d,"message":%q,"data":[]}`, c.code, c.message)}
			}, "")
			_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
			var envelopeError *EnvelopeError
			if !errors.As(err, &envelopeError) || envelopeError.Code != c.code || envelopeError.Message != c.message {
				t.Fatalf("error %v", err)
			}
			if HTTPStatus(err) != 500 {
				t.Fatalf("HTTPStatus = %d", HTTPStatus(err))
			}
		})
	}
}

func TestWrongSecretGives410(t *testing.T) {
	s := newSetup(t, nil, "wrong")
	_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
	var envelopeError *EnvelopeError
	if !errors.As(err, &envelopeError) || envelopeError.Code != 410 {
		t.Fatalf("error %v", err)
	}
}

func TestMissingJWT(t *testing.T) {
	s := newSetup(t, nil, "")
	for _, jwt := range []string{"", "   "} {
		_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: jwt})
		expectStatus(t, err, ErrMissingJWT, 400)
	}
	if len(s.dauth.requestsTo("/v1/oauth-meta/authorize")) != 0 {
		t.Fatal("authorize was called")
	}
	if _, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "j", Timeout: -time.Second}); err == nil {
		t.Fatal("a negative timeout was accepted")
	}
}

func TestCancelledContextGives499(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.callback = "none" }, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.client.GetSlotInfo(ctx, SlotInfoRequest{JWT: "user-jwt"})
		done <- err
	}()
	s.firstState(t)
	cancel()
	select {
	case err := <-done:
		expectStatus(t, err, context.Canceled, 499)
	case <-time.After(time.Second):
		t.Fatal("the call did not end with its context")
	}
}

func TestPassedDeadlineGives504(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.callback = "none" }, "")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := s.client.GetSlotInfo(ctx, SlotInfoRequest{JWT: "user-jwt", Timeout: 5 * time.Second})
	expectStatus(t, err, context.DeadlineExceeded, 504)
}

func TestDeadlineDuringAuthorizeGives504(t *testing.T) {
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer silent.Close()
	defer close(release)
	client, _ := New(Config{ClientID: "c", ClientSecret: "s", RedirectURI: "http://127.0.0.1:1/cb", AuthServerURL: silent.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := client.GetSlotInfo(ctx, SlotInfoRequest{JWT: "user-jwt"})
	expectStatus(t, err, context.DeadlineExceeded, 504)
}

func TestShutdownFailsPendingCallsAndRefusesLaterOnes(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.callback = "none" }, "")
	errs := make(chan error, 2)
	for _, jwt := range []string{"a", "b"} {
		jwt := jwt
		go func() {
			_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: jwt})
			errs <- err
		}()
	}
	for len(s.dauth.requestsTo("/v1/oauth-meta/authorize")) < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // let both calls reach their wait
	started := time.Now()
	if err := s.client.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		expectStatus(t, <-errs, ErrShutdown, 503)
	}
	if time.Since(started) > time.Second {
		t.Fatalf("shutdown took %v", time.Since(started))
	}
	_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "c"})
	expectStatus(t, err, ErrShutdown, 503)
	if outcome := s.client.HandleCallback(Callback{State: "y", Success: true, Code: "x"}); outcome != CallbackIgnored {
		t.Fatalf("outcome after shutdown %s", outcome)
	}
}

func TestShutdownStopsAnAuthorizeInFlight(t *testing.T) {
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer silent.Close()
	defer close(release)
	client, _ := New(Config{ClientID: "c", ClientSecret: "s", RedirectURI: "http://127.0.0.1:1/cb", AuthServerURL: silent.URL})
	done := make(chan error, 1)
	go func() {
		_, err := client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	_ = client.Shutdown(context.Background())
	select {
	case err := <-done:
		expectStatus(t, err, ErrShutdown, 503)
	case <-time.After(time.Second):
		t.Fatal("the call outlived the shutdown")
	}
}

func TestShutdownFailsAnExchangeInFlightAndWaitsForIt(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.tokenDelay = 3 * time.Second }, "")
	done := make(chan error, 1)
	go func() {
		_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt"})
		done <- err
	}()
	for len(s.dauth.requestsTo("/v1/oauth-meta/get_token")) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.client.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v (the exchange was not stopped)", err)
	}
	expectStatus(t, <-done, ErrShutdown, 503)
}

func TestNewValidatesTheConfiguration(t *testing.T) {
	valid := Config{ClientID: "c", ClientSecret: "s", RedirectURI: "https://game.example/cb/"}
	for name, change := range map[string]func(*Config){
		"no client id":      func(c *Config) { c.ClientID = "" },
		"no secret":         func(c *Config) { c.ClientSecret = "" },
		"relative redirect": func(c *Config) { c.RedirectURI = "game.example/cb" },
		"ftp redirect":      func(c *Config) { c.RedirectURI = "ftp://game.example/cb" },
		"query in base":     func(c *Config) { c.AuthServerURL = "http://x/?a=1" },
	} {
		config := valid
		change(&config)
		if _, err := New(config); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	client, err := New(Config{ClientID: "c", ClientSecret: "very-secret-value", RedirectURI: "HTTPS://Game.example:443/cb/"})
	if err != nil {
		t.Fatal(err)
	}
	if client.baseURL != DefaultAuthServerURL || client.redirectURI != "HTTPS://Game.example:443/cb/" {
		t.Fatalf("base %q, redirect %q", client.baseURL, client.redirectURI)
	}
	if httpClient, ok := client.httpClient.(*http.Client); !ok || httpClient.Timeout != 15*time.Second {
		t.Fatalf("default HTTP client %#v", client.httpClient)
	}
	var printed bytes.Buffer
	fmt.Fprintf(&printed, "%v %+v %#v %s", client, client, client, client)
	if strings.Contains(printed.String(), "very-secret-value") {
		t.Fatalf("the secret leaks through fmt: %s", printed.String())
	}
	other, _ := New(Config{ClientID: "c", ClientSecret: "s", RedirectURI: "https://g/cb", AuthServerURL: "https://dauth.example//"})
	if other.baseURL != "https://dauth.example" {
		t.Fatalf("base %q", other.baseURL)
	}
}
