package dauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// federatedMFAAccount signs subject in once (creating the account), then turns a second factor on.
func federatedMFAAccount(t *testing.T, fake *fakePlayerRoutes, client *Client, subject string, codes ...string) string {
	t.Helper()
	login, err := client.FederatedLogin(context.Background(), "google", fake.issueIDToken("google", subject, ""))
	if err != nil {
		t.Fatal(err)
	}
	fake.enableMFA(login.UUID, codes...)
	return login.UUID
}

func mustMFARequired(t *testing.T, err error) *MFARequiredError {
	t.Helper()
	var required *MFARequiredError
	if !errors.As(err, &required) || !errors.Is(err, ErrMFARequired) {
		t.Fatalf("want *MFARequiredError, got %v", err)
	}
	return required
}

func TestFederatedLoginOfAnMFAAccountIsMFARequiredAndLoginMFAGivesTheSession(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	ctx := context.Background()
	uuid := federatedMFAAccount(t, fake, client, "mfa-sub-1", "123456")
	login, err := client.FederatedLogin(ctx, "google", fake.issueIDToken("google", "mfa-sub-1", ""))
	if login != nil {
		t.Fatalf("a session without the second step: %+v", login)
	}
	required := mustMFARequired(t, err)
	if !strings.HasPrefix(required.MFAToken(), "mfa.") || !reflect.DeepEqual(required.Methods, []string{"totp", "recovery_code"}) ||
		required.ExpiresIn != 300 || required.Created == nil || *required.Created {
		t.Fatalf("MFARequiredError: %+v", required)
	}
	// The token is a capability: printing the error must not print it.
	for _, text := range []string{required.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", *required)} {
		if strings.Contains(text, required.MFAToken()) {
			t.Fatalf("the mfa_token is printed: %s", text)
		}
	}

	session, err := client.LoginMFA(ctx, required.MFAToken(), "123456")
	if err != nil {
		t.Fatal(err)
	}
	request := fake.last()
	var sent map[string]string
	_ = json.Unmarshal(request.body, &sent)
	if request.path != "/v1/dev-user/login/mfa" || !reflect.DeepEqual(sent, map[string]string{"mfa_token": required.MFAToken(), "code": "123456"}) {
		t.Fatalf("sent %s %s", request.path, request.body)
	}
	if *session != (LoginSession{Token: "jwt." + uuid, UUID: uuid}) {
		t.Fatalf("session %+v", session)
	}
	if identities, err := client.ListIdentities(ctx, session.Token); err != nil || len(identities) != 1 {
		t.Fatalf("the session does not work: %v %v", identities, err)
	}
}

func TestLoginMFARefusalsAreTyped(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	ctx := context.Background()
	federatedMFAAccount(t, fake, client, "mfa-sub-2", "222222")
	_, err := client.FederatedLogin(ctx, "google", fake.issueIDToken("google", "mfa-sub-2", ""))
	token := mustMFARequired(t, err).MFAToken()
	_, err = client.LoginMFA(ctx, token, "000000")
	var refused *LoginMFAError
	if !errors.Is(err, ErrInvalidMFACode) || !errors.As(err, &refused) || refused.StatusCode != 401 {
		t.Fatalf("a wrong code: %v", err)
	}
	if _, err := client.LoginMFA(ctx, token, "222222"); err != nil {
		t.Fatal(err)
	}
	if _, err := client.LoginMFA(ctx, token, "222222"); !errors.Is(err, ErrInvalidMFAToken) {
		t.Fatalf("a used token: %v", err)
	}

	// After 5 codes the token is dead, the right code included.
	federatedMFAAccount(t, fake, client, "mfa-sub-3", "333333")
	_, err = client.FederatedLogin(ctx, "google", fake.issueIDToken("google", "mfa-sub-3", ""))
	token = mustMFARequired(t, err).MFAToken()
	for i := 0; i < 5; i++ {
		if _, err := client.LoginMFA(ctx, token, fmt.Sprintf("00000%d", i)); !errors.Is(err, ErrInvalidMFACode) {
			t.Fatalf("code %d: %v", i, err)
		}
	}
	if _, err := client.LoginMFA(ctx, token, "333333"); !errors.Is(err, ErrInvalidMFAToken) {
		t.Fatalf("after 5 codes: %v", err)
	}
	before := fake.count()
	if _, err := client.LoginMFA(ctx, "", "123456"); err == nil || fake.count() != before {
		t.Fatal("an empty token was sent")
	}
}

func TestRegisterContentProviderOfAnOwnerWithASecondFactorIsMFARequired(t *testing.T) {
	fake, client := startFakePlayerRoutes(t)
	uuid := fake.passwordLogin("owner@example.com", "owner-password-1")
	fake.enableMFA(uuid, "444444")
	before := fake.count()
	registration, err := RegisterContentProvider(context.Background(), ProviderConfig{
		ClientID: "game-1", Cuid: "cuid-1", ReleasePer: 10, OwnerAddr: "0x" + strings.Repeat("1", 40),
		Email: "owner@example.com", Password: "owner-password-1", AuthServerURL: fake.server.URL,
	})
	if registration != nil {
		t.Fatalf("registered: %+v", registration)
	}
	required := mustMFARequired(t, err)
	if required.Created != nil || fake.count() != before+1 || fake.last().path != "/v1/dev-user/login_devuser" {
		t.Fatalf("%+v after %d calls", required, fake.count()-before)
	}
	session, err := client.LoginMFA(context.Background(), required.MFAToken(), "444444")
	if err != nil || session.UUID != uuid {
		t.Fatalf("%+v %v", session, err)
	}
}
