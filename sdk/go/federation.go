package dauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
)

// Sign in with Google, Apple, Discord or Steam (docs/federation.md). A game that signs the player in
// natively (Sign in with Apple or Google on the device) turns the upstream id_token into a dauth
// login JWT bound to this app with FederatedLogin. An identity is (provider, subject); an account
// with the same e-mail is never linked automatically: the player signs in to it and links.

// The federation refusals a caller acts on; test with errors.Is on the returned *FederationError.
var (
	// ErrInvalidIDToken: 401 invalid_id_token, the upstream id_token is not valid for that provider
	// (signature, iss, aud, exp).
	ErrInvalidIDToken = errors.New("invalid_id_token")
	// ErrAccountLinkRequired: 409 account_exists_link_required, an account with the upstream e-mail
	// exists. The player signs in to it and links the identity there (LinkIdentity).
	ErrAccountLinkRequired = errors.New("account_exists_link_required")
	// ErrLastSignInMethod: 409 last_sign_in_method, unlinking would leave no way to sign in.
	ErrLastSignInMethod = errors.New("last_sign_in_method")
	// ErrFirstPartyRequired: 403 first_party_required, a change to the account's ways in (link,
	// unlink; decisions §9) takes only a fresh login JWT of the dauth console, never the app-bound
	// JWT a game holds (a guest's own JWT may still link its first identity). Send the player to
	// the dauth console to do it there.
	ErrFirstPartyRequired = errors.New("first_party_required")
	// ErrIDTokenReplayed: 401 id_token_replayed, the service accepts an upstream id_token once. Get
	// a new one from the platform's SDK; retrying the same one is refused again.
	ErrIDTokenReplayed = errors.New("id_token_replayed")
	// ErrPlatformRejected: 401 platform_rejected, the platform refused the credential of a platform
	// sign-in (a Steam ticket for another app or identity, an expired EOS token, a stale or replayed
	// Game Center signature, a used Play Games code). Get a new one; never retry the same one.
	ErrPlatformRejected = errors.New("platform_rejected")
	// ErrPlatformBanned: 403 platform_banned, the platform bans this account (Steam publisher or VAC ban).
	ErrPlatformBanned = errors.New("platform_banned")
)

// FederationError is a federated sign-in or an identity call answered with a failure. It matches
// ErrInvalidIDToken, ErrAccountLinkRequired, ErrLastSignInMethod, ErrFirstPartyRequired,
// ErrIDTokenReplayed, ErrPlatformRejected or ErrPlatformBanned by its ErrorCode; other codes are e.g. identity_in_use (409, linked to another
// account), unknown_provider (404), id_token_unsupported (400: an oauth2 or steam provider),
// reauthentication_required (401: a console JWT older than the service's STEP_UP_MAX_AGE),
// provider_unavailable (503), rate_limited.
type FederationError struct {
	StatusCode int
	ErrorCode  string
	Message    string
}

func (e *FederationError) Error() string {
	return refusalText("federation request failed", e.StatusCode, e.ErrorCode, e.Message)
}

// Is makes errors.Is(err, ErrAccountLinkRequired) and its siblings work.
func (e *FederationError) Is(target error) bool {
	switch target {
	case ErrInvalidIDToken, ErrAccountLinkRequired, ErrLastSignInMethod, ErrFirstPartyRequired, ErrIDTokenReplayed,
		ErrPlatformRejected, ErrPlatformBanned:
		return e.ErrorCode == target.Error()
	}
	return false
}

// FederatedLogin is a native sign-in: a login JWT bound to the app, and whether it made the account.
type FederatedLogin struct {
	Token string `json:"token"`
	UUID  string `json:"uuid"`
	// Created is true when this sign-in created the account.
	Created bool `json:"created"`
}

// LinkedIdentity is an upstream identity linked to the account.
type LinkedIdentity struct {
	ID string `json:"id"`
	// Provider is the provider's id in IDENTITY_PROVIDERS, e.g. "google"; ProviderName its display name.
	Provider     string `json:"provider"`
	ProviderName string `json:"provider_name"`
	// Subject is the upstream sub (a Steam id for steam).
	Subject string `json:"subject"`
	// Email is the upstream e-mail, or "" when it sent none.
	Email string `json:"email"`
	// CreatedAt is ISO 8601 UTC.
	CreatedAt string `json:"created_at"`
}

func (c *Client) federationCall(ctx context.Context, method, path, bearer string, payload any, requireSuccess bool, into any) error {
	refusal, err := c.callService(ctx, method, path, bearer, payload, requireSuccess, into)
	if err != nil {
		return err
	}
	if refusal != nil {
		return &FederationError{StatusCode: refusal.status, ErrorCode: refusal.code, Message: refusal.message}
	}
	return nil
}

// FederatedLogin is POST /v1/dev-user/federated-login {provider, id_token, client_id} for this app.
// An id_token is accepted once: ErrIDTokenReplayed for one used already. An account with a second
// factor returns *MFARequiredError (Created set): then LoginMFA.
func (c *Client) FederatedLogin(ctx context.Context, provider, idToken string) (*FederatedLogin, error) {
	var answer struct {
		Token   string     `json:"token"`
		UUID    flexibleID `json:"uuid"`
		Created *bool      `json:"created"`
	}
	var raw json.RawMessage
	payload := map[string]string{"provider": provider, "id_token": idToken, "client_id": c.clientID}
	if err := c.federationCall(ctx, http.MethodPost, "/v1/dev-user/federated-login", "", payload, true, &raw); err != nil {
		return nil, err
	}
	if err := mfaRequired(raw, http.StatusOK); err != nil {
		return nil, err
	}
	if json.Unmarshal(raw, &answer) != nil {
		return nil, &MalformedResponseError{What: "federated login result is not an object", StatusCode: http.StatusOK}
	}
	if answer.Token == "" || answer.UUID == "" || answer.Created == nil {
		return nil, &MalformedResponseError{What: "federated login result has missing fields", StatusCode: http.StatusOK}
	}
	return &FederatedLogin{Token: answer.Token, UUID: string(answer.UUID), Created: *answer.Created}, nil
}

// PlatformLogin is POST /v1/dev-user/platform-login {provider, client_id, credential} for this app: a
// backend relaying its game's platform credential (docs/federation.md, "Platform sign-in inside the
// game"). credential is what the platform gave the game: {"ticket": hex} for steam_ticket,
// {"id_token": jwt} for epic, {"public_key_url", "signature", "salt", "timestamp", "team_player_id",
// "bundle_id"} for game_center, {"server_auth_code": code} for google_play_games. ErrPlatformRejected
// (get a new credential) and ErrPlatformBanned are its refusals; an account with a second factor
// returns *MFARequiredError (Created set): then LoginMFA.
func (c *Client) PlatformLogin(ctx context.Context, provider string, credential map[string]any) (*FederatedLogin, error) {
	if len(credential) == 0 {
		return nil, errors.New("dauth: credential is required")
	}
	var answer struct {
		Token   string     `json:"token"`
		UUID    flexibleID `json:"uuid"`
		Created *bool      `json:"created"`
	}
	var raw json.RawMessage
	payload := map[string]any{"provider": provider, "client_id": c.clientID, "credential": credential}
	if err := c.federationCall(ctx, http.MethodPost, "/v1/dev-user/platform-login", "", payload, true, &raw); err != nil {
		return nil, err
	}
	if err := mfaRequired(raw, http.StatusOK); err != nil {
		return nil, err
	}
	if json.Unmarshal(raw, &answer) != nil {
		return nil, &MalformedResponseError{What: "platform login result is not an object", StatusCode: http.StatusOK}
	}
	if answer.Token == "" || answer.UUID == "" || answer.Created == nil {
		return nil, &MalformedResponseError{What: "platform login result has missing fields", StatusCode: http.StatusOK}
	}
	return &FederatedLogin{Token: answer.Token, UUID: string(answer.UUID), Created: *answer.Created}, nil
}

// wireIdentity reads an identity whose id the service may send as a string or a number.
type wireIdentity struct {
	ID           flexibleID `json:"id"`
	Provider     string     `json:"provider"`
	ProviderName string     `json:"provider_name"`
	Subject      string     `json:"subject"`
	Email        *string    `json:"email"`
	CreatedAt    string     `json:"created_at"`
}

func (w wireIdentity) identity() (LinkedIdentity, error) {
	if w.ID == "" || w.Provider == "" || w.Subject == "" || w.CreatedAt == "" {
		return LinkedIdentity{}, &MalformedResponseError{What: "identity has missing fields", StatusCode: http.StatusOK}
	}
	identity := LinkedIdentity{ID: string(w.ID), Provider: w.Provider, ProviderName: w.ProviderName, Subject: w.Subject, CreatedAt: w.CreatedAt}
	if identity.ProviderName == "" {
		identity.ProviderName = w.Provider
	}
	if w.Email != nil {
		identity.Email = *w.Email
	}
	return identity, nil
}

// ListIdentities is GET /v1/dev-user/identities with the account's login JWT.
func (c *Client) ListIdentities(ctx context.Context, loginToken string) ([]LinkedIdentity, error) {
	var answer struct {
		Identities *[]wireIdentity `json:"identities"`
	}
	if err := c.federationCall(ctx, http.MethodGet, "/v1/dev-user/identities", loginToken, nil, false, &answer); err != nil {
		return nil, err
	}
	if answer.Identities == nil {
		return nil, &MalformedResponseError{What: "identities is missing", StatusCode: http.StatusOK}
	}
	identities := make([]LinkedIdentity, 0, len(*answer.Identities))
	for _, wire := range *answer.Identities {
		identity, err := wire.identity()
		if err != nil {
			return nil, err
		}
		identities = append(identities, identity)
	}
	return identities, nil
}

// LinkIdentity is POST /v1/dev-user/identities {provider, id_token} with the signed-in account's login
// JWT: the identity then signs in to this account. With the app's JWT only a guest may (it becomes a
// full account, same uuid); any other account gets ErrFirstPartyRequired: the player links at the
// dauth console.
func (c *Client) LinkIdentity(ctx context.Context, loginToken, provider, idToken string) (*LinkedIdentity, error) {
	var wire wireIdentity
	payload := map[string]string{"provider": provider, "id_token": idToken}
	if err := c.federationCall(ctx, http.MethodPost, "/v1/dev-user/identities", loginToken, payload, false, &wire); err != nil {
		return nil, err
	}
	identity, err := wire.identity()
	if err != nil {
		return nil, err
	}
	return &identity, nil
}

// UnlinkIdentity is DELETE /v1/dev-user/identities/{id} with a console JWT; it fails with
// ErrFirstPartyRequired for the app's JWT and with ErrLastSignInMethod when the identity is the
// account's last way in.
func (c *Client) UnlinkIdentity(ctx context.Context, loginToken, identityID string) error {
	if identityID == "" {
		return errors.New("dauth: identityID is required")
	}
	return c.federationCall(ctx, http.MethodDelete, "/v1/dev-user/identities/"+url.PathEscape(identityID), loginToken, nil, true, nil)
}

// flexibleID is an id the service may send as a JSON string or a JSON integer; it keeps the text.
type flexibleID string

func (f *flexibleID) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err == nil {
		*f = flexibleID(text)
		return nil
	}
	var number json.Number
	if err := json.Unmarshal(data, &number); err != nil {
		return err
	}
	if _, err := number.Int64(); err != nil && !isDigits(number.String()) {
		return errors.New("id is neither a string nor an integer")
	}
	*f = flexibleID(number.String())
	return nil
}

func isDigits(text string) bool {
	for _, r := range text {
		if r < '0' || r > '9' {
			return false
		}
	}
	return text != ""
}
