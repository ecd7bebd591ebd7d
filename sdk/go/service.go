package dauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// serviceRefusal is a failure answer of one of the service's own JSON routes:
// {success: false, error, message, ...} (decisions §2).
type serviceRefusal struct {
	status  int
	code    string
	message string
	// body is the whole error body: some codes carry more members (details, call_index, ...).
	body map[string]json.RawMessage
}

// callService makes one call to a JSON route of the service (not the /v1/oauth-meta/* envelope
// routes). On a 2xx answer it decodes the body into into (when not nil) and returns (nil, nil); a
// failure answer is returned as a *serviceRefusal; a transport failure or an unreadable 2xx answer
// as an error. requireSuccess treats a 2xx answer without "success": true as a refusal.
func (c *Client) callService(ctx context.Context, method, path, bearer string, payload any, requireSuccess bool, into any) (*serviceRefusal, error) {
	answer, err := c.send(ctx, method, path, bearer, payload)
	if err != nil {
		return nil, err
	}
	var object map[string]json.RawMessage
	parseErr := json.Unmarshal(answer.body, &object)
	var success *bool
	if parseErr == nil {
		if raw, ok := object["success"]; ok {
			var flag bool
			if json.Unmarshal(raw, &flag) == nil {
				success = &flag
			}
		}
	}
	ok := answer.status >= 200 && answer.status < 300 && parseErr == nil && object != nil
	if ok && requireSuccess {
		ok = success != nil && *success
	} else if ok {
		ok = success == nil || *success
	}
	if !ok {
		if answer.status >= 200 && answer.status < 300 && !requireSuccess && (parseErr != nil || object == nil) {
			return nil, &MalformedResponseError{What: "body is not a JSON object", StatusCode: answer.status}
		}
		refusal := &serviceRefusal{status: answer.status, message: "no error message", body: object}
		var text string
		if json.Unmarshal(object["error"], &text) == nil {
			refusal.code = text
		}
		if json.Unmarshal(object["message"], &text) == nil && text != "" {
			refusal.message = text
		}
		return refusal, nil
	}
	if into != nil {
		decoder := json.NewDecoder(bytes.NewReader(answer.body))
		decoder.UseNumber()
		if err := decoder.Decode(into); err != nil {
			return nil, &MalformedResponseError{What: fmt.Sprintf("%s %s: %v", method, path, err), StatusCode: answer.status}
		}
	}
	return nil, nil
}

// refusalText is the message of the SDK's refusal errors: "what (HTTP 409, code): message".
func refusalText(what string, status int, code, message string) string {
	if code != "" {
		return fmt.Sprintf("%s (HTTP %d, %s): %s", what, status, code, message)
	}
	return fmt.Sprintf("%s (HTTP %d): %s", what, status, message)
}
