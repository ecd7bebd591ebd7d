package dauth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeDauth is a loopback stand-in for the service's backend-integration routes, written to the
// contract the SDK is built against. The end-to-end suite against a live server replaces it; the
// tests only use its URL.
type fakeDauth struct {
	server *httptest.Server

	mu          sync.Mutex
	redirectURI string
	callback    string // "success", "reject" or "none"
	slotIDJSON  string
	tokenDelay  time.Duration
	// authorizeDelay, when set, holds authorize's answer back: the callback goes out first and the
	// answer follows once the code was exchanged and authorizeDelay has passed (a slow network).
	authorizeDelay time.Duration
	exchanged      map[string]chan struct{}
	// tokenAnsweredAt and authorizeAnsweredAt record the order in which the answers left.
	tokenAnsweredAt, authorizeAnsweredAt time.Time
	tokenResponse                        *fakeAnswer
	requests                             []recorded
	callbacks                            []int
	callbackSent                         chan int
	codes                                map[string]string
	counter                              int
}

type fakeAnswer struct {
	status int
	body   string
}

type recorded struct {
	method, path, authorization string
	query                       url.Values
	body                        []byte
}

func startFakeDauth(t *testing.T, redirectURI string) *fakeDauth {
	t.Helper()
	fake := &fakeDauth{
		redirectURI:  redirectURI,
		callback:     "success",
		slotIDJSON:   "1234567890123456789",
		callbackSent: make(chan int, 16),
		codes:        map[string]string{},
		exchanged:    map[string]chan struct{}{},
	}
	fake.server = httptest.NewServer(http.HandlerFunc(fake.route))
	t.Cleanup(fake.server.Close)
	return fake
}

func (f *fakeDauth) set(change func(*fakeDauth)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

func (f *fakeDauth) requestsTo(path string) []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	var matching []recorded
	for _, request := range f.requests {
		if request.path == path {
			matching = append(matching, request)
		}
	}
	return matching
}

// nextCallbackStatus waits for the status the app answered the next callback POST with.
func (f *fakeDauth) nextCallbackStatus(t *testing.T) int {
	t.Helper()
	select {
	case status := <-f.callbackSent:
		return status
	case <-time.After(5 * time.Second):
		t.Fatal("no callback was sent")
		return 0
	}
}

func (f *fakeDauth) route(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	request := recorded{method: r.Method, path: r.URL.Path, authorization: r.Header.Get("Authorization"), query: r.URL.Query(), body: body}
	f.mu.Lock()
	f.requests = append(f.requests, request)
	f.mu.Unlock()
	switch r.Method + " " + r.URL.Path {
	case "GET /v1/oauth-meta/authorize":
		f.authorize(w, request)
	case "POST /v1/oauth-meta/get_token":
		f.getToken(w, r, request)
	case "POST /v1/oauth-meta/user/logout":
		reply(w, 200, `{"code":1,"message":"success","data":[]}`)
	case "POST /v1/oauth/status/login":
		f.status(w, request, "logged_in")
	case "POST /v1/oauth/status/logout", "GET /v1/oauth/status/check":
		f.status(w, request, "logged_out")
	default:
		reply(w, 404, `{"success":false,"error":"not_found","message":"no such route"}`)
	}
}

func (f *fakeDauth) authorize(w http.ResponseWriter, request recorded) {
	f.mu.Lock()
	if f.authorizeDelay > 0 && strings.TrimPrefix(request.authorization, "Bearer ") == "user-jwt" {
		f.delayedAuthorize(w, request)
		return
	}
	defer f.mu.Unlock()
	jwt := strings.TrimPrefix(request.authorization, "Bearer ")
	query := request.query
	switch {
	case jwt == "":
		reply(w, 401, `{"code":401,"message":"missing bearer token","data":[]}`)
	case jwt == "expired-jwt":
		reply(w, 401, `{"code":401,"message":"EXPIRED_TOKEN","data":[]}`)
	case jwt == "no-wallet-jwt":
		// As the service renders it (docs/backend-integration.md): the message is the identifier.
		reply(w, 409, `{"code":409,"message":"wallet_required","data":[]}`)
	case query.Has("response_type") || query.Get("respose_type") != "code":
		reply(w, 400, `{"code":400,"message":"respose_type must be code","data":[]}`)
	case query.Get("client_id") != "client-1" || query.Get("redirect_uri") != f.redirectURI:
		reply(w, 401, `{"code":401,"message":"redirect_uri mismatch"}`)
	default:
		f.counter++
		code := fmt.Sprintf("code-%d", f.counter)
		f.codes[code] = "issued"
		reply(w, 200, `{"code":1,"message":{"res":"ok","status_code":200,"status_msg":"slot ready"},"data":[]}`)
		// After answering, as the service does.
		go f.sendCallback(query.Get("state"), code, f.callback, f.redirectURI)
	}
}

// delayedAuthorize is entered with f.mu held. It sends the callback before answering, waits until
// the SDK has exchanged the code, then holds the answer for authorizeDelay more.
func (f *fakeDauth) delayedAuthorize(w http.ResponseWriter, request recorded) {
	f.counter++
	code := fmt.Sprintf("code-%d", f.counter)
	f.codes[code] = "issued"
	exchanged := make(chan struct{})
	f.exchanged[code] = exchanged
	delay, mode, redirectURI := f.authorizeDelay, f.callback, f.redirectURI
	f.mu.Unlock()
	go f.sendCallback(request.query.Get("state"), code, mode, redirectURI)
	select {
	case <-exchanged:
	case <-time.After(5 * time.Second):
	}
	time.Sleep(delay)
	f.mu.Lock()
	f.authorizeAnsweredAt = time.Now()
	f.mu.Unlock()
	reply(w, 200, `{"code":1,"message":{"res":"ok","status_code":200,"status_msg":"slot ready"},"data":[]}`)
}

func (f *fakeDauth) sendCallback(state, code, mode, redirectURI string) {
	if mode == "none" {
		return
	}
	payload := map[string]any{"success": 1, "code": code, "state": state}
	if mode == "reject" {
		payload = map[string]any{"success": 0, "code": "", "state": state}
	}
	encoded, _ := json.Marshal(payload)
	status := -1
	if answer, err := http.Post(redirectURI, "application/json", bytes.NewReader(encoded)); err == nil {
		status = answer.StatusCode
		answer.Body.Close()
	}
	f.mu.Lock()
	f.callbacks = append(f.callbacks, status)
	f.mu.Unlock()
	f.callbackSent <- status
}

func (f *fakeDauth) getToken(w http.ResponseWriter, r *http.Request, request recorded) {
	f.mu.Lock()
	delay, override := f.tokenDelay, f.tokenResponse
	f.mu.Unlock()
	select {
	case <-time.After(delay):
	case <-r.Context().Done(): // the client gave up; so does the fake
		return
	}
	if override != nil {
		reply(w, override.status, override.body)
		return
	}
	var body map[string]string
	_ = json.Unmarshal(request.body, &body)
	failure := func(code int, message string) {
		reply(w, 200, fmt.Sprintf(`{"code":%d,"message":%q,"data":[]}`, code, message))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case body["client_id"] != "client-1":
		failure(570, "unregistered")
	case body["client_secret"] != "secret-1":
		failure(410, "client mismatch")
	case body["grant_type"] == "refresh_token" && body["refresh_token"] != "rt-1":
		failure(510, "refresh token expired")
	case body["grant_type"] == "refresh_token":
		reply(w, 200, f.slotBody("refreshed"))
	case f.codes[body["code"]] == "":
		failure(570, "unregistered")
	case f.codes[body["code"]] == "used":
		failure(510, "code expired")
	default:
		f.codes[body["code"]] = "used"
		reply(w, 200, f.slotBody(body["code"]))
		f.tokenAnsweredAt = time.Now()
		if exchanged, ok := f.exchanged[body["code"]]; ok {
			close(exchanged)
		}
	}
}

// slotBody writes the id as the service does: a raw 19-digit number (or a string, when set so).
func (f *fakeDauth) slotBody(code string) string {
	slot := fmt.Sprintf(`{"id":%s,"access_token":"at-%s","refresh_token":"rt-1","expires_in":3600,`+
		`"content_address":"0x5fbdb2315678afecb367f032d93f642f64180aa3","token_nickname":"neo","tr_cnt":0,"code":%q}`,
		f.slotIDJSON, code, code)
	return `{"code":1,"message":"success","data":[` + slot + `]}`
}

func (f *fakeDauth) status(w http.ResponseWriter, request recorded, status string) {
	if request.authorization != "Bearer at-good" {
		reply(w, 401, `{"success":false,"error":"invalid_token","message":"token is not valid"}`)
		return
	}
	userID := request.query.Get("user_id")
	if userID == "" {
		var body map[string]string
		_ = json.Unmarshal(request.body, &body)
		userID = body["user_id"]
	}
	encoded, _ := json.Marshal(map[string]any{
		"success": true, "message": "status " + status, "user_id": userID, "status": status,
		"transfer_enabled": status == "logged_out", "timestamp": "2025-01-01T00:00:00.000Z",
	})
	reply(w, 200, string(encoded))
}

func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
