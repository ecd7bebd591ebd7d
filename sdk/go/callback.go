package dauth

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
)

// A callback is three short fields; anything much larger is not one.
const maxCallbackBytes = 64 << 10

// Callback is what the service POSTs to the redirect URI after an accepted authorize.
type Callback struct {
	State string
	// Success is true when the callback's success was 1; anything else is a rejection.
	Success bool
	// Code is the authorization code; empty when absent.
	Code string
}

// ParseCallback reads a JSON callback body. success counts when it is the number 1 or the string
// "1" (true does not: 1 is the contract). ok is false when there is no state to match, which is
// treated like an unknown state: silently ignored.
func ParseCallback(body []byte) (callback Callback, ok bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return Callback{}, false
	}
	var state, code string
	if raw := members["state"]; len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &state) != nil || state == "" {
		return Callback{}, false
	}
	if raw := members["code"]; len(raw) > 0 && raw[0] == '"' {
		_ = json.Unmarshal(raw, &code)
	}
	success := false
	if raw := members["success"]; len(raw) > 0 && raw[0] == '"' {
		var text string
		success = json.Unmarshal(raw, &text) == nil && text == "1"
	} else if value, isInteger := integral(raw); isInteger {
		success = value == 1
	}
	return Callback{State: state, Success: success, Code: code}, true
}

// callbackFromValues reads a form or query carrier, where success is the text "1".
func callbackFromValues(values url.Values) (Callback, bool) {
	state := values.Get("state")
	if state == "" {
		return Callback{}, false
	}
	return Callback{State: state, Success: values.Get("success") == "1", Code: values.Get("code")}, true
}

// CallbackOutcome says what HandleCallback did; the HTTP answer is 200 in every case.
type CallbackOutcome string

const (
	// CallbackExchanging: a pending call matched, and its code is being exchanged.
	CallbackExchanging CallbackOutcome = "exchanging"
	// CallbackRejected: a pending call matched and failed with ErrCallbackRejected.
	CallbackRejected CallbackOutcome = "rejected"
	// CallbackIgnored: no call here waits for the state (or the client is shut down).
	CallbackIgnored CallbackOutcome = "ignored"
)

// HandleCallback completes the pending call the callback's state names. It returns at once: the
// code is exchanged in a detached goroutine, so answer the callback's HTTP request with 200 first
// (spec, endpoint 13, callback handling order). A state no call here waits for is ignored, and the
// call waiting for it elsewhere (if any) times out.
func (c *Client) HandleCallback(callback Callback) CallbackOutcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shutDown {
		return CallbackIgnored
	}
	call := c.pending.get(callback.State)
	if call == nil || !call.claim() {
		return CallbackIgnored
	}
	if !callback.Success || callback.Code == "" {
		call.finish(nil, ErrCallbackRejected)
		return CallbackRejected
	}
	// Counted under c.mu, so that Shutdown never waits on a group that is still growing.
	c.exchanges.Add(1)
	go func() {
		defer c.exchanges.Done()
		slot, err := c.getToken(call.ctx, map[string]string{"grant_type": "authorization_code", "code": callback.Code})
		call.finish(slot, err)
	}()
	return CallbackExchanging
}

// CallbackHandler serves the callback route; mount it at the path of the redirect URI. It accepts
// POST only (the service sends POST), answers 200 as soon as the body is read, then hands the
// callback to HandleCallback. The body is JSON (what the service sends) or a form; when it names
// no state, the query string is used.
func (c *Client) CallbackHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCallbackBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				w.WriteHeader(http.StatusRequestEntityTooLarge)
			} else {
				w.WriteHeader(http.StatusBadRequest)
			}
			return
		}
		callback, ok := callbackFromBody(body, r.Header.Get("Content-Type"))
		if !ok {
			callback, ok = callbackFromValues(r.URL.Query())
		}
		w.WriteHeader(http.StatusOK)
		if flusher, canFlush := w.(http.Flusher); canFlush {
			flusher.Flush()
		}
		if ok {
			c.HandleCallback(callback)
		}
	})
}

func callbackFromBody(body []byte, contentType string) (Callback, bool) {
	if mediaType, _, _ := mime.ParseMediaType(contentType); mediaType == "application/x-www-form-urlencoded" {
		values, err := url.ParseQuery(string(body))
		if err != nil {
			return Callback{}, false
		}
		return callbackFromValues(values)
	}
	return ParseCallback(body)
}
