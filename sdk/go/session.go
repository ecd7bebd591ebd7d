package dauth

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
)

// Session operations (docs/session-keys.md): the player granted this app limited powers over their
// wallet once, with the PIN; the app's backend then acts within that policy with the player's
// OAuth access token for the app, and the wallet contract enforces the same policy on chain.

// SessionCall is one call the player's wallet makes under the app's session key.
type SessionCall struct {
	// To is the target contract, "0x" and 40 hex digits.
	To string
	// Value is the wei sent with the call; nil is 0.
	Value *big.Int
	// Data is the call data as 0x-hex (a selector and its arguments); "" is "0x".
	Data string
}

// SessionCallResult is the outcome of one call of a session operation.
type SessionCallResult struct {
	CallIndex int    `json:"call_index"`
	To        string `json:"to"`
	Success   bool   `json:"success"`
}

// SessionOperationResult is a session operation the wallet executed.
type SessionOperationResult struct {
	UserOpHash string              `json:"user_op_hash"`
	TxHash     string              `json:"tx_hash"`
	Results    []SessionCallResult `json:"results"`
}

// SessionOperationError is a session operation the service refused; nothing was signed. ErrorCode
// is e.g. session_key_not_found (404: no active grant for this app), invalid_token (401) or
// sponsorship_quota_exceeded (429). A call outside the policy is an *OutsideSessionPolicyError.
type SessionOperationError struct {
	StatusCode int
	ErrorCode  string
	Message    string
}

func (e *SessionOperationError) Error() string {
	return refusalText("session operation refused", e.StatusCode, e.ErrorCode, e.Message)
}

// OutsideSessionPolicyError is 403 outside_session_policy: the call at CallIndex is outside the
// wallet policy the player granted the app (Reason: e.g. call_not_allowed, value_per_call,
// value_per_day, token_per_day, expired). Nothing was signed; find it with errors.As.
type OutsideSessionPolicyError struct {
	StatusCode int
	// CallIndex is the refused call's index in the calls sent; -1 when the service named none.
	CallIndex int
	Reason    string
	Message   string
}

func (e *OutsideSessionPolicyError) Error() string {
	return fmt.Sprintf("%s (call %d: %s)", refusalText("session operation refused", e.StatusCode, "outside_session_policy", e.Message), e.CallIndex, e.Reason)
}

type wireSessionCall struct {
	To    string `json:"to"`
	Value string `json:"value"`
	Data  string `json:"data"`
}

// sessionCallsBody checks the calls, so that bad input never reaches the service.
func sessionCallsBody(calls []SessionCall) ([]wireSessionCall, error) {
	if len(calls) == 0 {
		return nil, errors.New("dauth: calls must not be empty")
	}
	wire := make([]wireSessionCall, len(calls))
	for i, call := range calls {
		if !isAddress(call.To) {
			return nil, fmt.Errorf("dauth: calls[%d].To is not an address", i)
		}
		value := "0"
		if call.Value != nil {
			if call.Value.Sign() < 0 {
				return nil, fmt.Errorf("dauth: calls[%d].Value is negative", i)
			}
			value = call.Value.String()
		}
		data := call.Data
		if data == "" {
			data = "0x"
		}
		if !strings.HasPrefix(data, "0x") || len(data)%2 != 0 {
			return nil, fmt.Errorf("dauth: calls[%d].Data is not 0x-hex bytes", i)
		}
		if _, err := hex.DecodeString(data[2:]); err != nil {
			return nil, fmt.Errorf("dauth: calls[%d].Data is not 0x-hex bytes", i)
		}
		wire[i] = wireSessionCall{To: call.To, Value: value, Data: data}
	}
	return wire, nil
}

func isAddress(text string) bool {
	if len(text) != 42 || !strings.HasPrefix(text, "0x") {
		return false
	}
	_, err := hex.DecodeString(text[2:])
	return err == nil
}

// SessionOperations is POST /v1/wallet/session-operations {calls} with the player's OAuth access token
// for this app (e.g. SlotInfo.AccessToken): the player's wallet makes the calls in one operation,
// signed by the session key the player granted the app. A call outside the granted policy fails with
// an *OutsideSessionPolicyError; any other refusal is a *SessionOperationError.
func (c *Client) SessionOperations(ctx context.Context, accessToken string, calls []SessionCall) (*SessionOperationResult, error) {
	if accessToken == "" {
		return nil, errors.New("dauth: accessToken is required")
	}
	wire, err := sessionCallsBody(calls)
	if err != nil {
		return nil, err
	}
	var result SessionOperationResult
	payload := map[string]any{"calls": wire}
	refusal, err := c.callService(ctx, http.MethodPost, "/v1/wallet/session-operations", accessToken, payload, false, &result)
	if err != nil {
		return nil, err
	}
	if refusal != nil {
		return nil, sessionRefusal(refusal)
	}
	if result.UserOpHash == "" {
		return nil, &MalformedResponseError{What: "session operation result has no user_op_hash", StatusCode: http.StatusOK}
	}
	return &result, nil
}

func sessionRefusal(refusal *serviceRefusal) error {
	if refusal.code != "outside_session_policy" {
		return &SessionOperationError{StatusCode: refusal.status, ErrorCode: refusal.code, Message: refusal.message}
	}
	// decisions §8 names details: {call_index, reason}; the service's error handler may also spread
	// them into the body's top level, so both places are read.
	details := refusal.body
	var nested map[string]json.RawMessage
	if json.Unmarshal(refusal.body["details"], &nested) == nil && nested != nil {
		details = nested
	}
	policyError := &OutsideSessionPolicyError{StatusCode: refusal.status, CallIndex: -1, Message: refusal.message}
	var index int
	if json.Unmarshal(details["call_index"], &index) == nil && index >= 0 {
		policyError.CallIndex = index
	}
	_ = json.Unmarshal(details["reason"], &policyError.Reason)
	return policyError
}
