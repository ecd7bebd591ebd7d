package dauth

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakePlayerRoutes is a loopback stand-in for the service's federation and session-operation routes
// (decisions §8), keeping state as the service does: identities keyed by (provider, subject), an
// account per identity, the last way in never unlinked, a wallet policy checked call by call. Its
// id_tokens are opaque strings registered with issueIDToken; any other is 401 invalid_id_token, and
// an accepted one is spent: presented again it is 401 id_token_replayed (decisions §9).
//
// Login JWTs are "jwt.<uuid>" when bound to the app (what federated-login and a guest sign-in give a
// game) and "console.<uuid>" when bound to dauth:console and fresh. Linking and unlinking take only
// the console's (403 first_party_required), except that a guest's own app-bound JWT may link while
// the account is still a guest (its upgrade; decisions §9 "Ways in").
//
// An account given a second factor (enableMFA, docs/mfa.md) answers its password or federated sign-in
// with {mfa_required, mfa_token, methods} and no token; POST /v1/dev-user/login/mfa takes a code (each
// once), refuses a wrong one 401 invalid_mfa_code and ends the token after 5 codes or its use (401
// invalid_mfa_token).
type fakePlayerRoutes struct {
	server *httptest.Server

	mu         sync.Mutex
	idTokens   map[string]fakeClaims
	identities []fakeIdentity
	accounts   map[string]bool // uuid -> has a password
	guests     map[string]bool // uuid -> still a guest
	spent      map[string]bool // id_tokens accepted once
	emails     map[string]string
	policies   map[string]fakePolicy // access token -> policy
	counter    int
	requests   []recorded
	mfa        map[string]map[string]bool // uuid -> the codes its second factor accepts
	mfaTokens  map[string]*fakeMFAToken
	passwords  map[string][2]string // e-mail -> password, uuid
}

type fakeMFAToken struct {
	uuid  string
	tries int
}

// passwordLogin makes an e-mail and password account that signs in at login_devuser: its uuid.
func (f *fakePlayerRoutes) passwordLogin(email, password string) string {
	uuid := strings.TrimPrefix(f.passwordAccount(email), "console.")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.passwords[email] = [2]string{password, uuid}
	return uuid
}

// enableMFA turns a second factor on for uuid: its sign-ins take a second step with one of codes.
func (f *fakePlayerRoutes) enableMFA(uuid string, codes ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mfa[uuid] = map[string]bool{}
	for _, code := range codes {
		f.mfa[uuid][code] = true
	}
}

// signIn answers a sign-in: the session, or the first step's for an account with a second factor.
func (f *fakePlayerRoutes) signIn(w http.ResponseWriter, uuid string, extra map[string]any) {
	body := map[string]any{"success": true}
	if f.mfa[uuid] == nil {
		body["token"], body["uuid"] = "jwt."+uuid, uuid
	} else {
		f.counter++
		token := fmt.Sprintf("mfa.%d", f.counter)
		f.mfaTokens[token] = &fakeMFAToken{uuid: uuid}
		body["mfa_required"], body["mfa_token"], body["methods"], body["expires_in"] = true, token, []string{"totp", "recovery_code"}, 300
	}
	for key, value := range extra {
		body[key] = value
	}
	answer(w, 200, body)
}

type fakeClaims struct{ provider, subject, email string }

type fakeIdentity struct {
	id, uuid string
	fakeClaims
}

type fakePolicy struct {
	target       string
	maxPerCall   *big.Int
	spreadDetail bool
}

func startFakePlayerRoutes(t *testing.T) (*fakePlayerRoutes, *Client) {
	t.Helper()
	fake := &fakePlayerRoutes{idTokens: map[string]fakeClaims{}, accounts: map[string]bool{}, guests: map[string]bool{}, spent: map[string]bool{}, emails: map[string]string{}, policies: map[string]fakePolicy{}, mfa: map[string]map[string]bool{}, mfaTokens: map[string]*fakeMFAToken{}, passwords: map[string][2]string{}}
	fake.server = httptest.NewServer(http.HandlerFunc(fake.route))
	t.Cleanup(fake.server.Close)
	client, err := New(Config{ClientID: "game-1", ClientSecret: "s3cret", RedirectURI: "http://127.0.0.1:1/cb", AuthServerURL: fake.server.URL})
	if err != nil {
		t.Fatal(err)
	}
	return fake, client
}

func (f *fakePlayerRoutes) issueIDToken(provider, subject, email string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counter++
	token := fmt.Sprintf("idt.%s.%s.%d", provider, subject, f.counter)
	f.idTokens[token] = fakeClaims{provider, subject, email}
	return token
}

func (f *fakePlayerRoutes) passwordAccount(email string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counter++
	uuid := fmt.Sprintf("1%018d", f.counter)
	f.accounts[uuid] = true
	f.emails[uuid] = email
	return "console." + uuid
}

// guestAccount makes a guest account and returns its app-bound login JWT.
func (f *fakePlayerRoutes) guestAccount() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counter++
	uuid := fmt.Sprintf("3%018d", f.counter)
	f.accounts[uuid] = false
	f.guests[uuid] = true
	return "jwt." + uuid
}

// consoleLogin is a fresh console sign-in (dauth:console) to the account uuid: its login JWT.
func consoleLogin(uuid string) string { return "console." + uuid }

func (f *fakePlayerRoutes) last() recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[len(f.requests)-1]
}

func (f *fakePlayerRoutes) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func fail(w http.ResponseWriter, status int, code string, extra map[string]any) {
	body := map[string]any{"success": false, "error": code, "message": "refused: " + code}
	for k, v := range extra {
		body[k] = v
	}
	answer(w, status, body)
}

func answer(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func (f *fakePlayerRoutes) identityView(i fakeIdentity) map[string]any {
	names := map[string]string{"google": "Google", "apple": "Apple", "discord": "Discord"}
	var email any
	if i.email != "" {
		email = i.email
	}
	return map[string]any{"id": i.id, "provider": i.provider, "provider_name": names[i.provider], "subject": i.subject, "email": email, "created_at": "2026-11-26T12:00:00.000Z"}
}

func (f *fakePlayerRoutes) verify(body map[string]any) (fakeClaims, int, string) {
	provider, _ := body["provider"].(string)
	token, _ := body["id_token"].(string)
	if provider == "" || token == "" {
		return fakeClaims{}, 400, "invalid_request"
	}
	claims, ok := f.idTokens[token]
	if !ok || claims.provider != provider {
		return fakeClaims{}, 401, "invalid_id_token"
	}
	if f.spent[token] {
		return fakeClaims{}, 401, "id_token_replayed"
	}
	return claims, 0, ""
}

// verifyAndFind verifies the body's id_token (answering the refusal itself) and finds its identity.
func (f *fakePlayerRoutes) verifyAndFind(w http.ResponseWriter, body map[string]any) (fakeClaims, *fakeIdentity, bool) {
	claims, status, code := f.verify(body)
	if status != 0 {
		fail(w, status, code, nil)
		return claims, nil, false
	}
	for n, i := range f.identities {
		if i.provider == claims.provider && i.subject == claims.subject {
			return claims, &f.identities[n], true
		}
	}
	return claims, nil, true
}

func (f *fakePlayerRoutes) route(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, recorded{method: r.Method, path: r.URL.EscapedPath(), authorization: r.Header.Get("Authorization"), body: raw})
	var body map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &body) != nil {
		fail(w, 400, "invalid_request", nil)
		return
	}
	bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	firstParty := strings.HasPrefix(bearer, "console.")
	uuid := strings.TrimPrefix(strings.TrimPrefix(bearer, "console."), "jwt.")
	_, signedIn := f.accounts[uuid]
	path := r.URL.EscapedPath()
	switch {
	case r.Method == "POST" && path == "/v1/dev-user/login_devuser":
		email, _ := body["email"].(string)
		account, ok := f.passwords[email]
		if !ok || body["password"] != account[0] {
			fail(w, 401, "invalid_credentials", nil)
			return
		}
		f.signIn(w, account[1], nil)
	case r.Method == "POST" && path == "/v1/dev-user/login/mfa":
		token, _ := body["mfa_token"].(string)
		pending := f.mfaTokens[token]
		if pending == nil || pending.tries >= 5 {
			fail(w, 401, "invalid_mfa_token", nil)
			return
		}
		pending.tries++
		code, _ := body["code"].(string)
		if !f.mfa[pending.uuid][code] {
			fail(w, 401, "invalid_mfa_code", nil)
			return
		}
		delete(f.mfa[pending.uuid], code)
		delete(f.mfaTokens, token)
		answer(w, 200, map[string]any{"success": true, "token": "jwt." + pending.uuid, "uuid": pending.uuid})
	case r.Method == "POST" && path == "/v1/dev-user/federated-login":
		claims, known, ok := f.verifyAndFind(w, body)
		if !ok {
			return
		}
		if known != nil {
			f.spent[body["id_token"].(string)] = true
			f.signIn(w, known.uuid, map[string]any{"created": false})
			return
		}
		for _, email := range f.emails {
			if email != "" && email == claims.email {
				fail(w, 409, "account_exists_link_required", nil)
				return
			}
		}
		f.counter++
		created := fmt.Sprintf("2%018d", f.counter)
		f.accounts[created] = false
		f.emails[created] = claims.email
		f.identities = append(f.identities, fakeIdentity{fmt.Sprintf("idn_%d", f.counter), created, claims})
		f.spent[body["id_token"].(string)] = true
		// The uuid as a JSON number, which the SDK must keep exact.
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"success":true,"token":"jwt.%s","uuid":%s,"created":true}`, created, created)
	case strings.HasPrefix(path, "/v1/dev-user/identities"):
		if !signedIn {
			fail(w, 401, "invalid_token", nil)
			return
		}
		switch {
		case r.Method == "GET":
			list := []map[string]any{}
			for _, i := range f.identities {
				if i.uuid == uuid {
					list = append(list, f.identityView(i))
				}
			}
			answer(w, 200, map[string]any{"identities": list})
		case !firstParty && !(r.Method == "POST" && f.guests[uuid]):
			fail(w, 403, "first_party_required", nil)
		case r.Method == "POST":
			claims, known, ok := f.verifyAndFind(w, body)
			if !ok {
				return
			}
			if known != nil {
				fail(w, 409, "identity_in_use", nil)
				return
			}
			f.counter++
			identity := fakeIdentity{fmt.Sprintf("idn_%d", f.counter), uuid, claims}
			f.identities = append(f.identities, identity)
			f.spent[body["id_token"].(string)] = true
			delete(f.guests, uuid)
			answer(w, 201, f.identityView(identity))
		case r.Method == "DELETE":
			id, _ := url.PathUnescape(strings.TrimPrefix(path, "/v1/dev-user/identities/"))
			index, mine := -1, 0
			for n, i := range f.identities {
				if i.uuid == uuid {
					mine++
					if i.id == id {
						index = n
					}
				}
			}
			if index < 0 {
				fail(w, 404, "identity_not_found", nil)
				return
			}
			if mine == 1 && !f.accounts[uuid] {
				fail(w, 409, "last_sign_in_method", nil)
				return
			}
			f.identities = append(f.identities[:index], f.identities[index+1:]...)
			answer(w, 200, map[string]any{"success": true})
		}
	case r.Method == "POST" && path == "/v1/wallet/session-operations":
		policy, ok := f.policies[bearer]
		if !ok {
			fail(w, 404, "session_key_not_found", nil)
			return
		}
		calls, _ := body["calls"].([]any)
		results := []map[string]any{}
		for index, item := range calls {
			call, _ := item.(map[string]any)
			value, valid := new(big.Int).SetString(fmt.Sprint(call["value"]), 10)
			if _, isText := call["value"].(string); !valid || !isText {
				fail(w, 400, "invalid_request", map[string]any{"field": fmt.Sprintf("calls[%d].value", index)})
				return
			}
			reason := ""
			if !strings.EqualFold(fmt.Sprint(call["to"]), policy.target) {
				reason = "call_not_allowed"
			} else if value.Cmp(policy.maxPerCall) > 0 {
				reason = "value_per_call"
			}
			if reason != "" {
				details := map[string]any{"call_index": index, "reason": reason}
				if policy.spreadDetail {
					fail(w, 403, "outside_session_policy", details)
				} else {
					fail(w, 403, "outside_session_policy", map[string]any{"details": details})
				}
				return
			}
			results = append(results, map[string]any{"call_index": index, "to": call["to"], "success": true})
		}
		answer(w, 200, map[string]any{"user_op_hash": "0x" + strings.Repeat("a", 64), "tx_hash": "0x" + strings.Repeat("b", 64), "results": results})
	default:
		fail(w, 404, "not_found", nil)
	}
}
