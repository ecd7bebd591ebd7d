package dauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// The errors of the spec's mapping table. Each carries the exact message the table names; test
// for them with errors.Is.
var (
	// ErrMissingJWT: GetSlotInfo was called without a JWT.
	ErrMissingJWT = errors.New("missing jwt")
	// ErrExpiredToken: the service refused the user's login JWT as expired.
	ErrExpiredToken = errors.New("EXPIRED_TOKEN")
	// ErrCallbackTimeout: no callback arrived for the request's state within the timeout.
	ErrCallbackTimeout = errors.New("authorize callback timeout")
	// ErrAuthorize: any other failure of the authorize step; the error is an *AuthorizeError.
	ErrAuthorize = errors.New("AUTHORIZE_ERROR")
	// ErrWalletRequired: authorize refused the user because they have no PIN wallet yet (HTTP 409,
	// envelope message wallet_required; decisions §7). Send the user to PIN set-up. The error is an
	// *AuthorizeError that matches both ErrWalletRequired and ErrAuthorize; HTTPStatus gives 409.
	ErrWalletRequired = errors.New("wallet_required")
	// ErrCallbackRejected: the callback arrived with success other than 1, or without a code.
	ErrCallbackRejected = errors.New("authorize callback rejected")
	// ErrShutdown: the client was shut down while the call was pending, or before it started.
	ErrShutdown = errors.New("shutdown")
)

// AuthorizeError is a failed authorize step other than an expired JWT: refused (for example
// "redirect_uri mismatch"), unreachable, or answered with a malformed body. It matches ErrAuthorize.
type AuthorizeError struct {
	// Reason is the service's message or what went wrong.
	Reason string
	// StatusCode is the HTTP status of the answer; 0 when there was none.
	StatusCode int
	// EnvelopeCode is the envelope's code; 0 when the answer was not a well-formed envelope.
	EnvelopeCode int
	// Err is the underlying failure, if any.
	Err error
}

func (e *AuthorizeError) Error() string        { return "AUTHORIZE_ERROR: " + e.Reason }
func (e *AuthorizeError) Unwrap() error        { return e.Err }
func (e *AuthorizeError) Is(target error) bool { return target == ErrAuthorize }

var envelopeCodeMeanings = map[int]string{410: "client mismatch", 510: "code expired", 570: "unregistered"}

// EnvelopeError is a well-formed envelope whose code is not 1 (get_token, refresh, logout).
type EnvelopeError struct {
	Operation string
	// Code is the envelope's numeric code: 410, 510, 570 or another failure code.
	Code int
	// Message is the envelope's message.
	Message string
}

func (e *EnvelopeError) Error() string {
	meaning, ok := envelopeCodeMeanings[e.Code]
	if !ok {
		meaning = "failure"
	}
	return fmt.Sprintf("%s failed with code %d (%s): %s", e.Operation, e.Code, meaning, e.Message)
}

// MalformedResponseError is a body that breaks the contract: not JSON, a string code, no slot in
// data, and so on.
type MalformedResponseError struct {
	What       string
	StatusCode int
}

func (e *MalformedResponseError) Error() string {
	return fmt.Sprintf("malformed response: %s (HTTP %d)", e.What, e.StatusCode)
}

// RequestError is a request that got no answer: connection refused or reset, or the HTTP client's
// timeout passed. A cancelled or expired caller context is returned as the context's error instead.
type RequestError struct {
	// URL is the request URL without its query (the authorize query carries the state).
	URL string
	Err error
}

func (e *RequestError) Error() string { return "request to " + e.URL + " failed: " + e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// StatusError is a login-status call (report or check) answered with a failure.
type StatusError struct {
	StatusCode int
	// ErrorCode is the service's stable error code, when it sent one.
	ErrorCode string
	Message   string
}

func (e *StatusError) Error() string {
	code := ""
	if e.ErrorCode != "" {
		code = ", " + e.ErrorCode
	}
	return fmt.Sprintf("login status request failed (HTTP %d%s): %s", e.StatusCode, code, e.Message)
}

// StatusClientClosedRequest is the non-standard 499 the spec names for a cancelled request context.
const StatusClientClosedRequest = 499

// HTTPStatus is the status a backend should answer with when a slot-info call failed, row by row
// as in the spec's table, plus ErrWalletRequired (409). A nil error gives 200.
func HTTPStatus(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, ErrExpiredToken):
		return http.StatusUnauthorized
	case errors.Is(err, ErrWalletRequired): // before ErrAuthorize, which it also matches
		return http.StatusConflict
	case errors.Is(err, ErrCallbackTimeout):
		return http.StatusRequestTimeout
	case errors.Is(err, ErrAuthorize):
		return http.StatusBadGateway
	case errors.Is(err, ErrCallbackRejected):
		return http.StatusBadGateway
	case errors.Is(err, ErrShutdown):
		return http.StatusServiceUnavailable
	case errors.Is(err, context.Canceled):
		return StatusClientClosedRequest
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, ErrMissingJWT):
		return http.StatusBadRequest
	default:
		return http.StatusInternalServerError
	}
}

// ConsumptionError is a consumption record the service refused (4xx or 5xx); nothing was recorded.
type ConsumptionError struct {
	StatusCode int
	// ErrorCode is the service's stable error code, e.g. insufficient_balance or invalid_payload.
	ErrorCode string
	Message   string
}

func (e *ConsumptionError) Error() string {
	code := ""
	if e.ErrorCode != "" {
		code = ", " + e.ErrorCode
	}
	return fmt.Sprintf("consumption refused (HTTP %d%s): %s", e.StatusCode, code, e.Message)
}
