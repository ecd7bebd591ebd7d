package dauth

import (
	"context"
	"net/http"
)

// Guest accounts (docs/players.md): a game creates an account for a new player without asking
// anything, keeps the returned secret on the device, and later upgrades the account to e-mail and
// password; the uuid, wallet and slots stay the same.

// GuestSession is a guest's login JWT (bound to the app, claim azp) and the account's uuid.
type GuestSession struct {
	Token string `json:"token"`
	UUID  string `json:"uuid"`
}

// NewGuest is a new guest: its session and the secret the game keeps on the device (shown once).
type NewGuest struct {
	GuestSession
	GuestSecret string `json:"guest_secret"`
}

// GuestUpgrade is what a guest becomes: an account with this e-mail and password.
type GuestUpgrade struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	Nickname string `json:"nickname,omitempty"`
}

// GuestError is a guest call answered with a failure: ErrorCode is e.g. invalid_credentials (wrong
// secret), email_taken, not_guest or rate_limited.
type GuestError struct {
	StatusCode int
	ErrorCode  string
	Message    string
}

func (e *GuestError) Error() string {
	return refusalText("guest request failed", e.StatusCode, e.ErrorCode, e.Message)
}

// CreateGuest is POST /v1/dev-user/guest for this client's app.
func (c *Client) CreateGuest(ctx context.Context) (*NewGuest, error) {
	var guest NewGuest
	if err := c.guestCall(ctx, "/v1/dev-user/guest", "", map[string]string{"client_id": c.clientID}, &guest); err != nil {
		return nil, err
	}
	if guest.Token == "" || guest.UUID == "" || guest.GuestSecret == "" {
		return nil, &MalformedResponseError{What: "guest creation result has missing fields", StatusCode: http.StatusCreated}
	}
	return &guest, nil
}

// GuestLogin is POST /v1/dev-user/guest/login with the uuid and secret the device kept.
func (c *Client) GuestLogin(ctx context.Context, uuid, guestSecret string) (*GuestSession, error) {
	var session GuestSession
	payload := map[string]string{"uuid": uuid, "guest_secret": guestSecret}
	if err := c.guestCall(ctx, "/v1/dev-user/guest/login", "", payload, &session); err != nil {
		return nil, err
	}
	if session.Token == "" || session.UUID == "" {
		return nil, &MalformedResponseError{What: "guest login result has missing fields", StatusCode: http.StatusOK}
	}
	return &session, nil
}

// UpgradeGuest is POST /v1/dev-user/guest/upgrade with the guest's login JWT; it returns the
// account's uuid, the same as before.
func (c *Client) UpgradeGuest(ctx context.Context, guestToken string, upgrade GuestUpgrade) (string, error) {
	var answer struct {
		UUID string `json:"uuid"`
	}
	if err := c.guestCall(ctx, "/v1/dev-user/guest/upgrade", guestToken, upgrade, &answer); err != nil {
		return "", err
	}
	if answer.UUID == "" {
		return "", &MalformedResponseError{What: "guest upgrade result has no uuid", StatusCode: http.StatusOK}
	}
	return answer.UUID, nil
}

func (c *Client) guestCall(ctx context.Context, path, bearer string, payload any, into any) error {
	refusal, err := c.callService(ctx, http.MethodPost, path, bearer, payload, true, into)
	if err != nil {
		return err
	}
	if refusal != nil {
		return &GuestError{StatusCode: refusal.status, ErrorCode: refusal.code, Message: refusal.message}
	}
	return nil
}
