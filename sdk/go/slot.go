package dauth

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
)

// SlotIDKind is how the service wrote a slot id: a raw JSON number (new slots) or a decimal
// string (imported slots).
type SlotIDKind string

const (
	SlotIDNumber SlotIDKind = "number"
	SlotIDString SlotIDKind = "string"
)

// SlotID is a slot id kept exact. Ids have up to 19 digits: more than float64 holds exactly and,
// above 9223372036854775807, more than int64. So the id is its decimal text plus its JSON kind;
// it marshals back to JSON in that kind. The zero value is "no id".
type SlotID struct {
	digits string
	kind   SlotIDKind
}

// NewSlotID makes a SlotID from decimal digits.
func NewSlotID(digits string, kind SlotIDKind) (SlotID, error) {
	if !isDecimal(digits) {
		return SlotID{}, fmt.Errorf("dauth: a slot id must be decimal digits, got %q", digits)
	}
	if kind != SlotIDNumber && kind != SlotIDString {
		return SlotID{}, fmt.Errorf("dauth: unknown slot id kind %q", kind)
	}
	return SlotID{digits: digits, kind: kind}, nil
}

// String returns the decimal digits exactly as the service sent them.
func (id SlotID) String() string { return id.digits }

// Kind returns the JSON kind the id arrived in.
func (id SlotID) Kind() SlotIDKind { return id.kind }

// IsZero reports whether the id is unset.
func (id SlotID) IsZero() bool { return id.digits == "" }

// Uint64 returns the id as a uint64, which holds every 19-digit id.
func (id SlotID) Uint64() (uint64, error) { return strconv.ParseUint(id.digits, 10, 64) }

// BigInt returns the id as a big.Int.
func (id SlotID) BigInt() *big.Int {
	value, _ := new(big.Int).SetString(id.digits, 10)
	return value
}

// MarshalJSON writes the id in its original kind: raw digits or a quoted string.
func (id SlotID) MarshalJSON() ([]byte, error) {
	if id.IsZero() {
		return []byte("null"), nil
	}
	if id.kind == SlotIDNumber {
		return []byte(id.digits), nil
	}
	return json.Marshal(id.digits)
}

// UnmarshalJSON reads a non-negative integer literal or a decimal string. Anything else, including
// a fraction or an exponent that may already have lost digits, is an error.
func (id *SlotID) UnmarshalJSON(data []byte) error {
	parsed, ok := slotIDFromJSON(data)
	if !ok {
		return fmt.Errorf("dauth: %s is not an exact slot id", truncate(data))
	}
	*id = parsed
	return nil
}

func slotIDFromJSON(data []byte) (SlotID, bool) {
	if len(data) > 0 && data[0] == '"' {
		var text string
		if err := json.Unmarshal(data, &text); err != nil || !isDecimal(text) {
			return SlotID{}, false
		}
		return SlotID{digits: text, kind: SlotIDString}, true
	}
	text := string(data)
	// JSON forbids leading zeros in numbers; "0" alone is fine.
	if !isDecimal(text) || (len(text) > 1 && text[0] == '0') {
		return SlotID{}, false
	}
	return SlotID{digits: text, kind: SlotIDNumber}, true
}

func isDecimal(text string) bool {
	if text == "" {
		return false
	}
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			return false
		}
	}
	return true
}

func truncate(data []byte) string {
	if len(data) > 40 {
		return string(data[:40]) + "…"
	}
	return string(data)
}

// SlotInfo is slot information as get_token returns it. Only ID and AccessToken are guaranteed;
// an absent optional field is left at its zero value.
type SlotInfo struct {
	ID           SlotID `json:"id"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token,omitempty"`
	// ExpiresIn is the lifetime of the access token in seconds.
	ExpiresIn      int64  `json:"expires_in"`
	ContentAddress string `json:"content_address,omitempty"`
	TokenNickname  string `json:"token_nickname,omitempty"`
	TrCnt          int64  `json:"tr_cnt"`
	// Code is the authorization code that was exchanged.
	Code string `json:"code,omitempty"`
}

// parseSlotInfo reads element 0 of an envelope's data; a mistyped member makes it malformed.
func parseSlotInfo(raw json.RawMessage, status int) (*SlotInfo, error) {
	malformed := func(what string) error { return &MalformedResponseError{What: what, StatusCode: status} }
	var members map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &members) != nil {
		return nil, malformed("data[0] is not slot information")
	}
	id, ok := slotIDFromJSON(members["id"])
	if !ok {
		return nil, malformed("slot id is not an exact non-negative integer")
	}
	slot := &SlotInfo{ID: id}
	for _, field := range []struct {
		key      string
		target   *string
		required bool
	}{
		{"access_token", &slot.AccessToken, true},
		{"refresh_token", &slot.RefreshToken, false},
		{"content_address", &slot.ContentAddress, false},
		{"token_nickname", &slot.TokenNickname, false},
		{"code", &slot.Code, false},
	} {
		value, present, ok := optionalString(members[field.key])
		if !ok || (field.required && !present) {
			return nil, malformed("slot " + field.key + " is not a string")
		}
		*field.target = value
	}
	for _, field := range []struct {
		key    string
		target *int64
	}{{"expires_in", &slot.ExpiresIn}, {"tr_cnt", &slot.TrCnt}} {
		value, ok := optionalInteger(members[field.key])
		if !ok {
			return nil, malformed("slot " + field.key + " is not an integer")
		}
		*field.target = value
	}
	return slot, nil
}

// optionalString reads an absent or null member as ("", false, true).
func optionalString(raw json.RawMessage) (value string, present, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, true
	}
	if raw[0] != '"' || json.Unmarshal(raw, &value) != nil {
		return "", true, false
	}
	return value, true, true
}

// optionalInteger reads a JSON number with an integral value (3600.0 counts); absent or null is 0.
func optionalInteger(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, true
	}
	return integral(raw)
}

// integral reads a JSON number with an integral value. Strings, booleans and null are refused:
// the contract's numbers are numbers.
func integral(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	var number json.Number
	if json.Unmarshal(raw, &number) != nil {
		return 0, false
	}
	if value, err := number.Int64(); err == nil {
		return value, true
	}
	value, err := number.Float64()
	// Bounds first: converting a float64 outside int64's range is implementation-defined.
	if err != nil || value < -(1<<63) || value >= 1<<63 || value != float64(int64(value)) {
		return 0, false
	}
	return int64(value), true
}
