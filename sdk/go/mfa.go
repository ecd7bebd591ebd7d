package dauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// A sign-in of an account with a second factor takes two steps (docs/mfa.md): the first credential
// (password, upstream id_token) answers *MFARequiredError instead of a session, and LoginMFA with its
// token and the player's code is the second.

var (
	// ErrMFARequired matches *MFARequiredError: the sign-in needs a second step (LoginMFA).
	ErrMFARequired = errors.New("mfa_required")
	// ErrInvalidMFACode: 401 invalid_mfa_code, the code is wrong or already used. Ask again: an
	// mfa_token takes 5 codes.
	ErrInvalidMFACode = errors.New("invalid_mfa_code")
	// ErrInvalidMFAToken: 401 invalid_mfa_token, the mfa_token is unknown, expired, used, or ended
	// after 5 codes. Sign in again.
	ErrInvalidMFAToken = errors.New("invalid_mfa_token")
)

// MFARequiredError is a sign-in whose first credential was right, for an account with a second
// factor: there is no session yet. Ask the player for their authenticator app's current code (or a
// recovery code) and call LoginMFA(ctx, err.MFAToken(), code) within ExpiresIn seconds. The token is
// kept unexported and Format prints only the message, so logging the error (even with %+v) does not
// print it.
type MFARequiredError struct {
	mfaToken string
	// Methods are the codes the second step accepts: "totp", "recovery_code".
	Methods []string
	// ExpiresIn is how many seconds the token lives (0 when the service did not say).
	ExpiresIn int
	// Created is a federated sign-in's "created" (this sign-in made the account); nil for a password sign-in.
	Created *bool
}

func (e MFARequiredError) Error() string {
	return "dauth: mfa_required: the account has a second factor; send a code with LoginMFA"
}

// Format prints the message for every verb: the token stays out of logs.
func (e MFARequiredError) Format(state fmt.State, _ rune) { _, _ = io.WriteString(state, e.Error()) }

// MFAToken is the second step's mfa_token: single use, 5 codes at most.
func (e *MFARequiredError) MFAToken() string { return e.mfaToken }

// Is makes errors.Is(err, ErrMFARequired) work.
func (e *MFARequiredError) Is(target error) bool { return target == ErrMFARequired }

// mfaRequired reads a sign-in answer: an *MFARequiredError for the first of two steps, nil for a session.
func mfaRequired(body []byte, status int) error {
	var answer struct {
		MFARequired bool     `json:"mfa_required"`
		MFAToken    string   `json:"mfa_token"`
		Methods     []string `json:"methods"`
		ExpiresIn   int      `json:"expires_in"`
		Created     *bool    `json:"created"`
	}
	if json.Unmarshal(body, &answer) != nil || !answer.MFARequired {
		return nil
	}
	if answer.MFAToken == "" || answer.Methods == nil {
		return &MalformedResponseError{What: "mfa_required without mfa_token or methods", StatusCode: status}
	}
	return &MFARequiredError{mfaToken: answer.MFAToken, Methods: answer.Methods, ExpiresIn: answer.ExpiresIn, Created: answer.Created}
}

// LoginMFAError is the second step of a sign-in answered with a failure. It matches
// ErrInvalidMFACode or ErrInvalidMFAToken by its ErrorCode; another code is e.g. rate_limited (429).
type LoginMFAError struct {
	StatusCode int
	ErrorCode  string
	Message    string
}

func (e *LoginMFAError) Error() string {
	return refusalText("second sign-in step refused", e.StatusCode, e.ErrorCode, e.Message)
}

// Is makes errors.Is(err, ErrInvalidMFACode) and errors.Is(err, ErrInvalidMFAToken) work.
func (e *LoginMFAError) Is(target error) bool {
	switch target {
	case ErrInvalidMFACode, ErrInvalidMFAToken:
		return e.ErrorCode == target.Error()
	}
	return false
}

// LoginSession is a sign-in's session: a login JWT (bound as the first step was) and the account's uuid.
type LoginSession struct {
	Token string
	UUID  string
}

// LoginMFA is the second step of a sign-in that returned *MFARequiredError: POST
// /v1/dev-user/login/mfa {mfa_token, code} with the player's current authenticator code or an unused
// recovery code gives the session. Errors match ErrInvalidMFACode (ask again) or ErrInvalidMFAToken
// (sign in again).
func (c *Client) LoginMFA(ctx context.Context, mfaToken, code string) (*LoginSession, error) {
	if mfaToken == "" || code == "" {
		return nil, errors.New("dauth: mfaToken and code are required")
	}
	var answer struct {
		Token string     `json:"token"`
		UUID  flexibleID `json:"uuid"`
	}
	payload := map[string]string{"mfa_token": mfaToken, "code": code}
	refusal, err := c.callService(ctx, http.MethodPost, "/v1/dev-user/login/mfa", "", payload, true, &answer)
	if err != nil {
		return nil, err
	}
	if refusal != nil {
		return nil, &LoginMFAError{StatusCode: refusal.status, ErrorCode: refusal.code, Message: refusal.message}
	}
	if answer.Token == "" || answer.UUID == "" {
		return nil, &MalformedResponseError{What: "second sign-in step result has missing fields", StatusCode: http.StatusOK}
	}
	return &LoginSession{Token: answer.Token, UUID: string(answer.UUID)}, nil
}
