package dauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// DeviceCodeGrantType is RFC 8628's grant type.
const DeviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

// DeviceAuthorization is the answer of POST /oauth/device_authorization: show UserCode and
// VerificationURI (or a QR code of VerificationURIComplete) to the player, then PollDeviceToken.
type DeviceAuthorization struct {
	DeviceCode string `json:"device_code"`
	// UserCode is "XXXX-XXXX": eight letters the player types on their phone.
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	// ExpiresIn is how long the codes live, in seconds.
	ExpiresIn int `json:"expires_in"`
	// Interval is the wait between polls, in seconds.
	Interval int `json:"interval"`
}

// DeviceTokens are the code flow's tokens; IDToken is set when openid was in the scope.
type DeviceTokens struct {
	AccessToken    string `json:"access_token"`
	TokenType      string `json:"token_type"`
	ExpiresIn      int    `json:"expires_in"`
	RefreshToken   string `json:"refresh_token"`
	UserID         string `json:"user_id"`
	IDToken        string `json:"id_token,omitempty"`
	ContentAddress string `json:"content_address,omitempty"`
}

// DeviceFlowError is a device authorization that ended without tokens: ErrorCode access_denied (the
// player said no), expired_token (start again), invalid_client, invalid_grant, rate_limited, ...
type DeviceFlowError struct {
	StatusCode int
	ErrorCode  string
	Message    string
}

func (e *DeviceFlowError) Error() string {
	return fmt.Sprintf("device authorization failed (HTTP %d, %s): %s", e.StatusCode, e.ErrorCode, e.Message)
}

type oauthAnswer struct {
	Error            string   `json:"error"`
	ErrorDescription string   `json:"error_description"`
	Interval         *float64 `json:"interval"`
}

func (c *Client) basicAuthorization() string {
	pair := url.QueryEscape(c.clientID) + ":" + url.QueryEscape(c.clientSecret)
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(pair))
}

func deviceRefusal(answer *response) error {
	var body oauthAnswer
	if err := json.Unmarshal(answer.body, &body); err != nil {
		return &MalformedResponseError{What: "body is not JSON", StatusCode: answer.status}
	}
	return &DeviceFlowError{StatusCode: answer.status, ErrorCode: body.Error, Message: body.ErrorDescription}
}

// StartDeviceAuthorization starts the device authorization grant (RFC 8628) for a console, TV or
// launcher; scope may be empty.
func (c *Client) StartDeviceAuthorization(ctx context.Context, scope string) (*DeviceAuthorization, error) {
	payload := map[string]string{}
	if scope != "" {
		payload["scope"] = scope
	}
	answer, err := c.sendAuthorized(ctx, http.MethodPost, "/oauth/device_authorization", c.basicAuthorization(), payload)
	if err != nil {
		return nil, err
	}
	if answer.status != http.StatusOK {
		return nil, deviceRefusal(answer)
	}
	var started DeviceAuthorization
	if err := json.Unmarshal(answer.body, &started); err != nil || started.DeviceCode == "" || started.UserCode == "" {
		return nil, &MalformedResponseError{What: "not a device authorization", StatusCode: answer.status}
	}
	if started.Interval <= 0 {
		started.Interval = 5
	}
	return &started, nil
}

// PollDeviceToken polls the token endpoint with the device code until the player approved (the
// tokens) or denied (*DeviceFlowError), waiting Interval seconds before each poll and 5 s more after
// every slow_down (or the interval the answer names, whichever is longer). It returns ctx.Err() when
// ctx ends first.
func (c *Client) PollDeviceToken(ctx context.Context, authorization *DeviceAuthorization) (*DeviceTokens, error) {
	sleep := c.deviceSleep
	if sleep == nil {
		sleep = sleepContext
	}
	interval := time.Duration(authorization.Interval) * time.Second
	if interval < time.Second {
		interval = time.Second
	}
	grant := map[string]string{"grant_type": DeviceCodeGrantType, "device_code": authorization.DeviceCode}
	for {
		if err := sleep(ctx, interval); err != nil {
			return nil, err
		}
		answer, err := c.sendAuthorized(ctx, http.MethodPost, "/oauth/token", c.basicAuthorization(), grant)
		if err != nil {
			return nil, err
		}
		if answer.status == http.StatusOK {
			var tokens DeviceTokens
			if err := json.Unmarshal(answer.body, &tokens); err != nil || tokens.AccessToken == "" {
				return nil, &MalformedResponseError{What: "not a token answer", StatusCode: answer.status}
			}
			return &tokens, nil
		}
		var body oauthAnswer
		if err := json.Unmarshal(answer.body, &body); err != nil {
			return nil, &MalformedResponseError{What: "body is not JSON", StatusCode: answer.status}
		}
		switch body.Error {
		case "authorization_pending":
			continue
		case "slow_down":
			interval += 5 * time.Second
			if body.Interval != nil {
				if named := time.Duration(*body.Interval * float64(time.Second)); named > interval {
					interval = named
				}
			}
			continue
		}
		return nil, &DeviceFlowError{StatusCode: answer.status, ErrorCode: body.Error, Message: body.ErrorDescription}
	}
}

func sleepContext(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
