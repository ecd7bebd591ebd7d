package dauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// LoginStatus is the login status result (spec, Resources › Login status result).
type LoginStatus struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	UserID  string `json:"user_id"`
	// Status is "logged_in" or "logged_out".
	Status string `json:"status"`
	// TransferEnabled says whether the user's rights may be listed on the marketplace (only when
	// logged out); nil when the answer did not carry it.
	TransferEnabled *bool `json:"transfer_enabled,omitempty"`
	// Timestamp is ISO 8601 UTC.
	Timestamp string `json:"timestamp"`
}

// StatusReport is the result of a login-status report. Reports never fail the caller: a failure is
// returned here and logged.
type StatusReport struct {
	OK     bool
	Status *LoginStatus
	Err    error
}

// ReportLogin reports that the user logged in to this app.
func (c *Client) ReportLogin(ctx context.Context, accessToken, userID string) StatusReport {
	return c.report(ctx, "login", accessToken, userID)
}

// ReportLogout reports that the user logged out, which allows listing their rights on the
// marketplace.
func (c *Client) ReportLogout(ctx context.Context, accessToken, userID string) StatusReport {
	return c.report(ctx, "logout", accessToken, userID)
}

// CheckStatus reads the user's login status; unlike the reports, it returns its failure.
func (c *Client) CheckStatus(ctx context.Context, accessToken, userID string) (*LoginStatus, error) {
	query := url.Values{"user_id": {userID}, "client_id": {c.clientID}}
	answer, err := c.send(ctx, http.MethodGet, "/v1/oauth/status/check?"+query.Encode(), accessToken, nil)
	if err != nil {
		return nil, err
	}
	return readLoginStatus(answer)
}

func (c *Client) report(ctx context.Context, transition, accessToken, userID string) StatusReport {
	// The spec: status-update failures must not block the user's login or logout.
	payload := map[string]string{"user_id": userID, "client_id": c.clientID}
	answer, err := c.send(ctx, http.MethodPost, "/v1/oauth/status/"+transition, accessToken, payload)
	var status *LoginStatus
	if err == nil {
		status, err = readLoginStatus(answer)
	}
	if err != nil {
		c.logger.Printf("dauth: reporting %s failed: %v", transition, err)
		return StatusReport{Err: err}
	}
	return StatusReport{OK: true, Status: status}
}

func readLoginStatus(answer *response) (*LoginStatus, error) {
	var body struct {
		LoginStatus
		Error *string `json:"error"`
	}
	parseErr := json.Unmarshal(answer.body, &body)
	answered := answer.status >= 200 && answer.status < 300
	if !answered || (parseErr == nil && !body.Success) {
		// Failures use the service's error body {success: false, error, message} (decisions §2).
		failure := &StatusError{StatusCode: answer.status, Message: body.Message}
		if body.Error != nil {
			failure.ErrorCode = *body.Error
		}
		if failure.Message == "" {
			failure.Message = "no error message"
		}
		return nil, failure
	}
	if parseErr != nil || body.UserID == "" || (body.Status != "logged_in" && body.Status != "logged_out") || body.Timestamp == "" {
		return nil, &MalformedResponseError{What: "login status result has missing or mistyped fields", StatusCode: answer.status}
	}
	return &body.LoginStatus, nil
}
