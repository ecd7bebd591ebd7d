package dauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vectors is sdk/vectors/vectors.json, shared by the three SDKs.
type vectors struct {
	Envelopes []struct {
		Name       string `json:"name"`
		HTTPStatus int    `json:"http_status"`
		Body       string `json:"body"`
		Expect     struct {
			Outcome string `json:"outcome"`
			Code    int    `json:"code"`
			// Decoded with UseNumber: expected numbers are compared as written.
			Slot map[string]any `json:"slot"`
		} `json:"expect"`
	} `json:"envelopes"`
	Authorize []struct {
		Name       string `json:"name"`
		HTTPStatus int    `json:"http_status"`
		Body       string `json:"body"`
		Expect     string `json:"expect"`
	} `json:"authorize"`
	Callbacks []struct {
		Name   string `json:"name"`
		Body   string `json:"body"`
		Expect *struct {
			State   string `json:"state"`
			Success bool   `json:"success"`
			Code    string `json:"code"`
		} `json:"expect"`
	} `json:"callbacks"`
	ErrorMapping []struct {
		Error   string `json:"error"`
		Message string `json:"message"`
		Status  int    `json:"status"`
		Only    string `json:"only"`
	} `json:"error_mapping"`
}

func loadVectors(t *testing.T) *vectors {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "vectors", "vectors.json"))
	if err != nil {
		t.Fatalf("reading the shared vectors: %v", err)
	}
	var loaded vectors
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	if err := decoder.Decode(&loaded); err != nil {
		t.Fatalf("decoding the shared vectors: %v", err)
	}
	return &loaded
}

// plainSlot is a SlotInfo in the vectors' form: the id as digits plus kind, zero fields left out.
func plainSlot(slot *SlotInfo) map[string]string {
	fields := map[string]string{"id": slot.ID.String(), "id_kind": string(slot.ID.Kind()), "access_token": slot.AccessToken}
	for key, value := range map[string]string{
		"refresh_token": slot.RefreshToken, "content_address": slot.ContentAddress,
		"token_nickname": slot.TokenNickname, "code": slot.Code,
	} {
		if value != "" {
			fields[key] = value
		}
	}
	if slot.ExpiresIn != 0 {
		fields["expires_in"] = jsonInt(slot.ExpiresIn)
	}
	fields["tr_cnt"] = jsonInt(slot.TrCnt)
	return fields
}

func jsonInt(value int64) string {
	encoded, _ := json.Marshal(value)
	return string(encoded)
}

func TestEnvelopeVectors(t *testing.T) {
	for _, vector := range loadVectors(t).Envelopes {
		vector := vector
		t.Run(vector.Name, func(t *testing.T) {
			slot, err := ReadSlotEnvelope([]byte(vector.Body), vector.HTTPStatus)
			switch vector.Expect.Outcome {
			case "slot":
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				want := map[string]string{}
				for key, value := range vector.Expect.Slot {
					want[key] = fmt.Sprint(value)
				}
				if _, hasCount := want["tr_cnt"]; !hasCount {
					want["tr_cnt"] = "0"
				}
				got := plainSlot(slot)
				if len(got) != len(want) {
					t.Fatalf("slot = %v, want %v", got, want)
				}
				for key, value := range want {
					if got[key] != value {
						t.Errorf("%s = %q, want %q", key, got[key], value)
					}
				}
			case "envelope_error":
				var envelopeError *EnvelopeError
				if !errors.As(err, &envelopeError) || envelopeError.Code != vector.Expect.Code {
					t.Fatalf("error = %v, want envelope code %d", err, vector.Expect.Code)
				}
			default:
				var malformed *MalformedResponseError
				if !errors.As(err, &malformed) {
					t.Fatalf("error = %v (slot %v), want a malformed response", err, slot)
				}
			}
		})
	}
}

func TestSlotIDRoundTrip(t *testing.T) {
	for _, literal := range []string{"1234567890123456789", `"1234567890123456789"`, "9999999999999999999"} {
		body := `{"code":1,"message":"success","data":[{"id":` + literal + `,"access_token":"a","tr_cnt":2}]}`
		slot, err := ReadSlotEnvelope([]byte(body), 200)
		if err != nil {
			t.Fatal(err)
		}
		encoded, err := json.Marshal(slot)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(encoded), `"id":`+literal+`,`) {
			t.Fatalf("marshalled %s, want the id written as %s", encoded, literal)
		}
		var again SlotInfo
		if err := json.Unmarshal(encoded, &again); err != nil {
			t.Fatal(err)
		}
		if again != *slot {
			t.Fatalf("round trip gave %+v, want %+v", again, *slot)
		}
	}
	id, _ := NewSlotID("9999999999999999999", SlotIDNumber)
	if value, err := id.Uint64(); err != nil || value != 9999999999999999999 {
		t.Fatalf("Uint64 = %d, %v", value, err)
	}
	if id.BigInt().String() != "9999999999999999999" {
		t.Fatalf("BigInt = %s", id.BigInt())
	}
	for _, bad := range []string{"1.5", "-1", "1e18", "01", "true", "null", `"0x12"`, `""`} {
		var target SlotID
		if err := json.Unmarshal([]byte(bad), &target); err == nil {
			t.Errorf("%s decoded as %v, want an error", bad, target)
		}
	}
}

func TestAuthorizeVectors(t *testing.T) {
	var current struct {
		status int
		body   string
	}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reply(w, current.status, current.body)
	}))
	defer server.Close()
	client, err := New(Config{ClientID: "c", ClientSecret: "s", RedirectURI: "http://127.0.0.1:1/cb", AuthServerURL: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, vector := range loadVectors(t).Authorize {
		current.status, current.body = vector.HTTPStatus, vector.Body
		err := client.authorize(context.Background(), "jwt", "state")
		var ok bool
		switch vector.Expect {
		case "accepted":
			ok = err == nil
		case "expired_token":
			ok = errors.Is(err, ErrExpiredToken)
		case "authorize_error":
			var authorizeError *AuthorizeError
			ok = errors.As(err, &authorizeError) && errors.Is(err, ErrAuthorize)
		}
		if !ok {
			t.Errorf("%s: error = %v, want %s", vector.Name, err, vector.Expect)
		}
	}
}

func TestCallbackVectors(t *testing.T) {
	for _, vector := range loadVectors(t).Callbacks {
		callback, ok := ParseCallback([]byte(vector.Body))
		if vector.Expect == nil {
			if ok {
				t.Errorf("%s: parsed %+v, want it ignored", vector.Name, callback)
			}
			continue
		}
		want := Callback{State: vector.Expect.State, Success: vector.Expect.Success, Code: vector.Expect.Code}
		if !ok || callback != want {
			t.Errorf("%s: parsed %+v (ok %v), want %+v", vector.Name, callback, ok, want)
		}
	}
}

func TestErrorMappingVectors(t *testing.T) {
	examples := map[string]error{
		"expired_token":             ErrExpiredToken,
		"callback_timeout":          ErrCallbackTimeout,
		"authorize_error":           &AuthorizeError{Reason: "redirect_uri mismatch", StatusCode: 401, EnvelopeCode: 401},
		"callback_rejected":         ErrCallbackRejected,
		"shutdown":                  ErrShutdown,
		"context_canceled":          context.Canceled,
		"context_deadline_exceeded": context.DeadlineExceeded,
		"missing_jwt":               ErrMissingJWT,
		"envelope_error":            &EnvelopeError{Operation: "get_token", Code: 510, Message: "code expired"},
		"malformed_response":        &MalformedResponseError{What: "envelope code is not a number", StatusCode: 200},
		"other":                     errors.New("boom"),
	}
	rows := loadVectors(t).ErrorMapping
	if len(rows) != len(examples) {
		t.Fatalf("%d rows, %d examples", len(rows), len(examples))
	}
	for _, row := range rows {
		err, ok := examples[row.Error]
		if !ok {
			t.Fatalf("no example for %s", row.Error)
		}
		if got := HTTPStatus(err); got != row.Status {
			t.Errorf("%s: HTTPStatus = %d, want %d", row.Error, got, row.Status)
		}
		// Wrapped by the caller, as Go code does, the mapping holds.
		if got := HTTPStatus(fmt.Errorf("login handler: %w", err)); got != row.Status {
			t.Errorf("%s wrapped: HTTPStatus = %d, want %d", row.Error, got, row.Status)
		}
		if row.Message != "" && !strings.HasPrefix(err.Error(), row.Message) {
			t.Errorf("%s: message %q, want it to start with %q", row.Error, err.Error(), row.Message)
		}
	}
	if HTTPStatus(nil) != http.StatusOK {
		t.Error("HTTPStatus(nil) must be 200")
	}
}
