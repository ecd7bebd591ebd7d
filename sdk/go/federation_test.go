package dauth

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"testing"
)

func TestFederatedLoginCreatesThenFindsTheAccount(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	ctx := context.Background()
	idToken := fake.issueIDToken("apple", "apple-sub-1", "p1@privaterelay.example")
	first, err := client.FederatedLogin(ctx, "apple", idToken)
	if err != nil {
		t.Fatal(err)
	}
	request := fake.last()
	var sent map[string]string
	_ = json.Unmarshal(request.body, &sent)
	if request.method != "POST" || request.path != "/v1/dev-user/federated-login" || request.authorization != "" {
		t.Fatalf("request %+v", request)
	}
	if !reflect.DeepEqual(sent, map[string]string{"provider": "apple", "id_token": idToken, "client_id": "game-1"}) {
		t.Fatalf("body %v", sent)
	}
	if !first.Created || len(first.UUID) != 19 || first.Token != "jwt."+first.UUID {
		t.Fatalf("first sign-in %+v", first)
	}
	again, err := client.FederatedLogin(ctx, "apple", fake.issueIDToken("apple", "apple-sub-1", ""))
	if err != nil || again.Created || again.UUID != first.UUID {
		t.Fatalf("second sign-in %+v %v", again, err)
	}
}

func TestFederatedLoginRefusals(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	ctx := context.Background()
	_, err := client.FederatedLogin(ctx, "google", "forged.id.token")
	var federationErr *FederationError
	if !errors.Is(err, ErrInvalidIDToken) || !errors.As(err, &federationErr) || federationErr.StatusCode != 401 {
		t.Fatalf("a forged token: %v", err)
	}
	if errors.Is(err, ErrAccountLinkRequired) {
		t.Fatal("invalid_id_token matched ErrAccountLinkRequired")
	}
	login := fake.passwordAccount("taken@example.com")
	idToken := fake.issueIDToken("google", "g-77", "taken@example.com")
	_, err = client.FederatedLogin(ctx, "google", idToken)
	if !errors.Is(err, ErrAccountLinkRequired) || !errors.As(err, &federationErr) || federationErr.StatusCode != 409 {
		t.Fatalf("an existing e-mail: %v", err)
	}
	if identities, err := client.ListIdentities(ctx, login); err != nil || len(identities) != 0 {
		t.Fatalf("nothing was linked: %v %v", identities, err)
	}
}

func TestLinkListAndUnlinkIdentities(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	ctx := context.Background()
	login := fake.passwordAccount("taken@example.com")
	idToken := fake.issueIDToken("google", "g-77", "taken@example.com")
	linked, err := client.LinkIdentity(ctx, login, "google", idToken)
	if err != nil {
		t.Fatal(err)
	}
	if request := fake.last(); request.method != "POST" || request.path != "/v1/dev-user/identities" || request.authorization != "Bearer "+login {
		t.Fatalf("link request %+v", request)
	}
	want := LinkedIdentity{ID: linked.ID, Provider: "google", ProviderName: "Google", Subject: "g-77", Email: "taken@example.com", CreatedAt: "2026-11-26T12:00:00.000Z"}
	if *linked != want || linked.ID == "" {
		t.Fatalf("linked %+v", linked)
	}
	identities, err := client.ListIdentities(ctx, login)
	if err != nil || !reflect.DeepEqual(identities, []LinkedIdentity{want}) {
		t.Fatalf("list %+v %v", identities, err)
	}
	signedIn, err := client.FederatedLogin(ctx, "google", fake.issueIDToken("google", "g-77", ""))
	if err != nil || "console."+signedIn.UUID != login {
		t.Fatalf("the linked identity signs in to the account: %+v %v", signedIn, err)
	}
	_, err = client.LinkIdentity(ctx, fake.passwordAccount("other@example.com"), "google", fake.issueIDToken("google", "g-77", ""))
	var federationErr *FederationError
	if !errors.As(err, &federationErr) || federationErr.ErrorCode != "identity_in_use" || errors.Is(err, ErrAccountLinkRequired) {
		t.Fatalf("an identity of another account: %v", err)
	}
	if err := client.UnlinkIdentity(ctx, login, linked.ID); err != nil {
		t.Fatal(err)
	}
	if request := fake.last(); request.method != "DELETE" || request.path != "/v1/dev-user/identities/"+linked.ID {
		t.Fatalf("unlink request %+v", request)
	}

	created, err := client.FederatedLogin(ctx, "discord", fake.issueIDToken("discord", "d-1", ""))
	if err != nil {
		t.Fatal(err)
	}
	only, err := client.ListIdentities(ctx, created.Token)
	if err != nil || len(only) != 1 || only[0].Email != "" || only[0].ProviderName != "Discord" {
		t.Fatalf("identities %+v %v", only, err)
	}
	err = client.UnlinkIdentity(ctx, consoleLogin(created.UUID), only[0].ID)
	if !errors.Is(err, ErrLastSignInMethod) || !errors.As(err, &federationErr) || federationErr.StatusCode != 409 {
		t.Fatalf("unlinking the last way in: %v", err)
	}
	if still, _ := client.ListIdentities(ctx, created.Token); len(still) != 1 {
		t.Fatal("the last identity was unlinked")
	}
	_ = client.UnlinkIdentity(ctx, created.Token, "../../x")
	if path := fake.last().path; path != "/v1/dev-user/identities/..%2F..%2Fx" {
		t.Fatalf("the id was not escaped: %s", path)
	}
}

func TestChangingTheWaysInWithTheGamesJWTIsFirstPartyRequired(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	ctx := context.Background()
	created, err := client.FederatedLogin(ctx, "apple", fake.issueIDToken("apple", "apple-fp-1", ""))
	if err != nil {
		t.Fatal(err)
	}
	only, _ := client.ListIdentities(ctx, created.Token)
	idToken := fake.issueIDToken("google", "g-fp-1", "")
	_, err = client.LinkIdentity(ctx, created.Token, "google", idToken)
	var federationErr *FederationError
	if !errors.Is(err, ErrFirstPartyRequired) || !errors.As(err, &federationErr) || federationErr.StatusCode != 403 || federationErr.ErrorCode != "first_party_required" {
		t.Fatalf("linking with the app's JWT: %v", err)
	}
	err = client.UnlinkIdentity(ctx, created.Token, only[0].ID)
	if !errors.Is(err, ErrFirstPartyRequired) || errors.Is(err, ErrLastSignInMethod) {
		t.Fatalf("unlinking with the app's JWT: %v", err)
	}
	if still, _ := client.ListIdentities(ctx, created.Token); !reflect.DeepEqual(still, only) {
		t.Fatalf("the refusals changed the identities: %+v", still)
	}
	// The player does it at the console; the refused id_token was not spent.
	if _, err := client.LinkIdentity(ctx, consoleLogin(created.UUID), "google", idToken); err != nil {
		t.Fatal(err)
	}

	guest := fake.guestAccount()
	if _, err := client.LinkIdentity(ctx, guest, "discord", fake.issueIDToken("discord", "d-guest", "")); err != nil {
		t.Fatalf("a guest's own JWT links its first identity: %v", err)
	}
	_, err = client.LinkIdentity(ctx, guest, "google", fake.issueIDToken("google", "g-guest", ""))
	if !errors.Is(err, ErrFirstPartyRequired) {
		t.Fatalf("a former guest's second link with its JWT: %v", err)
	}
}

func TestAnIDTokenPresentedAgainIsReplayed(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	ctx := context.Background()
	idToken := fake.issueIDToken("apple", "apple-replay", "")
	first, err := client.FederatedLogin(ctx, "apple", idToken)
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.FederatedLogin(ctx, "apple", idToken)
	var federationErr *FederationError
	if !errors.Is(err, ErrIDTokenReplayed) || !errors.As(err, &federationErr) || federationErr.StatusCode != 401 || errors.Is(err, ErrInvalidIDToken) {
		t.Fatalf("a replayed id_token: %v", err)
	}
	linkToken := fake.issueIDToken("google", "g-replay", "")
	if _, err := client.LinkIdentity(ctx, consoleLogin(first.UUID), "google", linkToken); err != nil {
		t.Fatal(err)
	}
	if _, err := client.LinkIdentity(ctx, consoleLogin(first.UUID), "google", linkToken); !errors.Is(err, ErrIDTokenReplayed) {
		t.Fatalf("a replayed id_token to link: %v", err)
	}
	// A new id_token from the platform signs in.
	again, err := client.FederatedLogin(ctx, "apple", fake.issueIDToken("apple", "apple-replay", ""))
	if err != nil || again.UUID != first.UUID || again.Created {
		t.Fatalf("a new id_token: %+v %v", again, err)
	}
}

func TestSessionOperationsSendsTheCallsAndReadsTheResult(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	gem := "0x00000000000000000000000000000000000000a1"
	fake.policies["at-1"] = fakePolicy{target: gem, maxPerCall: big.NewInt(100)}
	result, err := client.SessionOperations(context.Background(), "at-1", []SessionCall{
		{To: gem, Value: big.NewInt(100), Data: "0xa9059cbb"},
		{To: gem},
	})
	if err != nil {
		t.Fatal(err)
	}
	request := fake.last()
	if request.path != "/v1/wallet/session-operations" || request.authorization != "Bearer at-1" {
		t.Fatalf("request %+v", request)
	}
	want := `{"calls":[{"to":"` + gem + `","value":"100","data":"0xa9059cbb"},{"to":"` + gem + `","value":"0","data":"0x"}]}`
	if string(request.body) != want {
		t.Fatalf("body %s, want %s", request.body, want)
	}
	if len(result.UserOpHash) != 66 || len(result.TxHash) != 66 || len(result.Results) != 2 || result.Results[1] != (SessionCallResult{CallIndex: 1, To: gem, Success: true}) {
		t.Fatalf("result %+v", result)
	}
}

func TestSessionOperationsOutsideThePolicy(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	gem := "0x00000000000000000000000000000000000000a1"
	elsewhere := "0x00000000000000000000000000000000000000b2"
	fake.policies["nested"] = fakePolicy{target: gem, maxPerCall: big.NewInt(100)}
	fake.policies["spread"] = fakePolicy{target: gem, maxPerCall: big.NewInt(100), spreadDetail: true}
	for _, token := range []string{"nested", "spread"} {
		_, err := client.SessionOperations(context.Background(), token, []SessionCall{{To: gem, Value: big.NewInt(1)}, {To: elsewhere}})
		var policyErr *OutsideSessionPolicyError
		if !errors.As(err, &policyErr) || policyErr.StatusCode != 403 || policyErr.CallIndex != 1 || policyErr.Reason != "call_not_allowed" {
			t.Fatalf("%s: a batch hiding a forbidden call: %v", token, err)
		}
		_, err = client.SessionOperations(context.Background(), token, []SessionCall{{To: gem, Value: big.NewInt(101)}})
		if !errors.As(err, &policyErr) || policyErr.CallIndex != 0 || policyErr.Reason != "value_per_call" {
			t.Fatalf("%s: a value over the cap: %v", token, err)
		}
	}
	_, err := client.SessionOperations(context.Background(), "no-grant", []SessionCall{{To: gem}})
	var sessionErr *SessionOperationError
	var policyErr *OutsideSessionPolicyError
	if !errors.As(err, &sessionErr) || sessionErr.StatusCode != 404 || sessionErr.ErrorCode != "session_key_not_found" || errors.As(err, &policyErr) {
		t.Fatalf("no grant: %v", err)
	}
}

func TestSessionOperationsRefusesBadInputBeforeSending(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	gem := "0x00000000000000000000000000000000000000a1"
	bad := map[string][]SessionCall{
		"no calls":        nil,
		"short address":   {{To: "0x1234"}},
		"negative value":  {{To: gem, Value: big.NewInt(-1)}},
		"data without 0x": {{To: gem, Data: "a9059cbb"}},
		"odd hex":         {{To: gem, Data: "0xabc"}},
		"not hex":         {{To: gem, Data: "0xzz"}},
	}
	for name, calls := range bad {
		if _, err := client.SessionOperations(context.Background(), "at-1", calls); err == nil {
			t.Fatalf("%s was sent", name)
		}
	}
	if _, err := client.SessionOperations(context.Background(), "", []SessionCall{{To: gem}}); err == nil {
		t.Fatal("an empty access token was sent")
	}
	if n := fake.count(); n != 0 {
		t.Fatalf("%d requests were sent", n)
	}
}
