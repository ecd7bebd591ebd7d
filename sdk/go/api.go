package dauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Answers of the service are small; this bounds what a misbehaving peer can make us buffer.
const maxResponseBytes = 1 << 20

type response struct {
	status int
	body   []byte
}

// send makes one request. A cancelled or expired ctx is returned as ctx.Err() (so HTTPStatus gives
// 499 or 504); any other failure to get an answer is a *RequestError.
func (c *Client) send(ctx context.Context, method, path, bearer string, payload any) (*response, error) {
	authorization := ""
	if bearer != "" {
		authorization = "Bearer " + bearer
	}
	return c.sendAuthorized(ctx, method, path, authorization, payload)
}

// sendAuthorized is send with a whole Authorization header value (HTTP Basic for the OAuth endpoints).
func (c *Client) sendAuthorized(ctx context.Context, method, path, authorization string, payload any) (*response, error) {
	var body io.Reader
	if payload != nil {
		encoded, err := json.Marshal(payload)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(encoded)
	}
	request, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, body)
	if err != nil {
		return nil, err
	}
	request.Header.Set("Accept", "application/json")
	if payload != nil {
		request.Header.Set("Content-Type", "application/json")
	}
	if authorization != "" {
		request.Header.Set("Authorization", authorization)
	}
	answer, err := c.httpClient.Do(request)
	if err == nil {
		defer answer.Body.Close()
		var data []byte
		data, err = io.ReadAll(io.LimitReader(answer.Body, maxResponseBytes))
		if err == nil {
			return &response{status: answer.StatusCode, body: data}, nil
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, &RequestError{URL: c.baseURL + strings.SplitN(path, "?", 2)[0], Err: err}
}

// authorize is GET /v1/oauth-meta/authorize; nil means the service accepted the request.
func (c *Client) authorize(ctx context.Context, jwt, state string) error {
	query := url.Values{
		"client_id":    {c.clientID},
		"redirect_uri": {c.redirectURI},
		// Spelled so by the contract; the service refuses the correct spelling.
		"respose_type": {"code"},
		"state":        {state},
	}
	answer, err := c.send(ctx, http.MethodGet, "/v1/oauth-meta/authorize?"+query.Encode(), jwt, nil)
	if err != nil {
		var requestError *RequestError
		if errors.As(err, &requestError) {
			return &AuthorizeError{Reason: "service unreachable", Err: err}
		}
		return err
	}
	parsed, err := parseEnvelope(answer.body, answer.status)
	if err != nil {
		return &AuthorizeError{Reason: err.Error(), StatusCode: answer.status, Err: err}
	}
	if answer.status >= 200 && answer.status < 300 && parsed.Code == 1 {
		return nil
	}
	if parsed.Message == "EXPIRED_TOKEN" {
		return ErrExpiredToken
	}
	// The envelope has no error field: its message is the identifier (docs/backend-integration.md).
	if parsed.Message == "wallet_required" {
		return &AuthorizeError{Reason: parsed.Message, StatusCode: answer.status, EnvelopeCode: parsed.Code, Err: ErrWalletRequired}
	}
	reason := parsed.Message
	if reason == "" {
		reason = "code " + strconv.Itoa(parsed.Code)
	}
	return &AuthorizeError{Reason: reason, StatusCode: answer.status, EnvelopeCode: parsed.Code}
}

// getToken is POST /v1/oauth-meta/get_token for either grant.
func (c *Client) getToken(ctx context.Context, grant map[string]string) (*SlotInfo, error) {
	payload := map[string]string{"client_id": c.clientID, "client_secret": c.clientSecret}
	for key, value := range grant {
		payload[key] = value
	}
	answer, err := c.send(ctx, http.MethodPost, "/v1/oauth-meta/get_token", "", payload)
	if err != nil {
		return nil, err
	}
	return ReadSlotEnvelope(answer.body, answer.status)
}
