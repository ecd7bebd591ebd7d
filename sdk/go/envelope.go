package dauth

import (
	"encoding/json"
)

// envelope is the {code, message, data} answer of the /v1/oauth-meta/* routes. code is a JSON
// number whatever the HTTP status; a string code breaks the contract and is refused.
type envelope struct {
	Code    int
	Message string
	Data    []json.RawMessage
}

func parseEnvelope(body []byte, status int) (*envelope, error) {
	malformed := func(what string) error { return &MalformedResponseError{What: what, StatusCode: status} }
	var members map[string]json.RawMessage
	if !json.Valid(body) {
		return nil, malformed("body is not JSON")
	}
	if json.Unmarshal(body, &members) != nil || members == nil {
		return nil, malformed("envelope is not an object")
	}
	code, ok := integral(members["code"])
	if !ok {
		return nil, malformed("envelope code is not a number")
	}
	parsed := &envelope{Code: int(code), Message: messageText(members["message"])}
	// A null data counts as absent.
	if raw := members["data"]; len(raw) > 0 && string(raw) != "null" {
		if raw[0] != '[' || json.Unmarshal(raw, &parsed.Data) != nil {
			return nil, malformed("envelope data is not an array")
		}
	}
	return parsed, nil
}

// messageText is the envelope's message as text: a string as is, an object (the authorize success
// path) as its JSON.
func messageText(raw json.RawMessage) string {
	var text string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &text) == nil {
		return text
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// ReadSlotEnvelope reads a get_token answer: code 1 gives the slot in data[0], any other code an
// *EnvelopeError, whatever the HTTP status. It is what GetSlotInfo and Refresh use on live answers.
func ReadSlotEnvelope(body []byte, status int) (*SlotInfo, error) {
	parsed, err := parseEnvelope(body, status)
	if err != nil {
		return nil, err
	}
	if parsed.Code != 1 {
		return nil, &EnvelopeError{Operation: "get_token", Code: parsed.Code, Message: parsed.Message}
	}
	if len(parsed.Data) == 0 {
		return nil, &MalformedResponseError{What: "envelope data holds no slot", StatusCode: status}
	}
	return parseSlotInfo(parsed.Data[0], status)
}
