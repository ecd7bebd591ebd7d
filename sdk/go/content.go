package dauth

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// PayloadForm names the encrypted form of a consumption payload (docs/content-tokens.md).
type PayloadForm string

const (
	// PayloadCTR is the spec's form: hex(AES-256-CTR(key, iv, JSON)) under the fixed key and IV
	// issued at provider registration. One known plaintext reveals the key stream; prefer GCM.
	PayloadCTR PayloadForm = "ctr"
	// PayloadGCM is the authenticated form: "gcm1:" + hex(iv ‖ ciphertext ‖ tag) under the GCM key,
	// a fresh 12-byte IV per message, the client id as additional data and iat in the plaintext.
	PayloadGCM PayloadForm = "gcm"
)

// ContentConfig configures a ContentConsumer.
type ContentConfig struct {
	// ClientID is the provider's app, the client its cuid is registered to.
	ClientID string
	// ClientSecret, when set, adds HTTP Basic client authentication (client_id:client_secret) to
	// every call, which a provider with consume_auth client_secret requires.
	ClientSecret string
	Form         PayloadForm
	// Key is hex: 32 bytes (the CTR key, or the gcm_key of payload_mode).
	Key string
	// IV is hex, 16 bytes; CTR only.
	IV string
	// AuthServerURL is the service's base URL; DefaultAuthServerURL when empty.
	AuthServerURL string
	// HTTPClient defaults to an *http.Client with a 15 s timeout.
	HTTPClient HTTPClient
}

// Consumption is one record: deduct Amount base units of cuid's content tokens from the slot.
type Consumption struct {
	// UserDBKey is the slot id (SlotInfo.ID.String()).
	UserDBKey string
	// Amount is a positive integer of content-token base units, in decimal.
	Amount string
	Cuid   string
	// RequestID makes a retried call count once (1–128 characters); strongly advised.
	RequestID string
}

// ConsumptionResult is the service's answer: Status "included" (on chain, with the new figures) or
// "queued" (stored, HTTP 202; it will be recorded when the chain answers again).
type ConsumptionResult struct {
	Status       string `json:"-"`
	Cuid         string `json:"cuid"`
	Slot         string `json:"slot"`
	UserDBKey    string `json:"user_dbkey"`
	Amount       string `json:"amount"`
	RequestID    string `json:"request_id"`
	TxHash       string `json:"tx_hash"`
	Balance      string `json:"balance"`
	UsedBalances string `json:"used_balances"`
}

// ContentConsumer records content consumption from a provider backend (never from a browser or
// app): it builds the payload, encrypts it and POSTs it to increase_used_content_token.
type ContentConsumer struct {
	clientID      string
	authorization string
	form          PayloadForm
	key, iv       []byte
	baseURL       string
	httpClient    HTTPClient
}

var decimalPattern = regexp.MustCompile(`^[1-9][0-9]*$`)

// NewContentConsumer validates the configuration and returns a ContentConsumer.
func NewContentConsumer(config ContentConfig) (*ContentConsumer, error) {
	if config.ClientID == "" {
		return nil, errors.New("dauth: ClientID is required")
	}
	key, err := hex.DecodeString(config.Key)
	if err != nil || len(key) != 32 {
		return nil, errors.New("dauth: Key must be 32 bytes of hex")
	}
	consumer := &ContentConsumer{clientID: config.ClientID, form: config.Form, key: key, httpClient: config.HTTPClient}
	switch config.Form {
	case PayloadCTR:
		if consumer.iv, err = hex.DecodeString(config.IV); err != nil || len(consumer.iv) != aes.BlockSize {
			return nil, errors.New("dauth: IV must be 16 bytes of hex")
		}
	case PayloadGCM:
	default:
		return nil, errors.New(`dauth: Form must be "ctr" or "gcm"`)
	}
	base := config.AuthServerURL
	if base == "" {
		base = DefaultAuthServerURL
	}
	if _, err := httpURL("AuthServerURL", base); err != nil {
		return nil, err
	}
	consumer.baseURL = strings.TrimRight(base, "/")
	if config.ClientSecret != "" {
		// RFC 6749 §2.3.1: each part form-encoded, then id:secret in base64.
		request, _ := http.NewRequest(http.MethodPost, consumer.baseURL, nil)
		request.SetBasicAuth(url.QueryEscape(config.ClientID), url.QueryEscape(config.ClientSecret))
		consumer.authorization = request.Header.Get("Authorization")
	}
	if consumer.httpClient == nil {
		consumer.httpClient = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	return consumer, nil
}

// ConsumptionPlaintext is the payload's JSON text {client_id, user_dbkey, amount, cuid,
// request_id?, iat?}; iat is written when not zero (the GCM form requires it).
func ConsumptionPlaintext(clientID string, record Consumption, iat int64) ([]byte, error) {
	if !decimalPattern.MatchString(record.UserDBKey) {
		return nil, errors.New("dauth: UserDBKey must be a slot id (decimal digits)")
	}
	if !decimalPattern.MatchString(record.Amount) {
		return nil, errors.New("dauth: Amount must be a positive integer of base units")
	}
	if record.Cuid == "" {
		return nil, errors.New("dauth: Cuid is required")
	}
	payload := struct {
		ClientID  string `json:"client_id"`
		UserDBKey string `json:"user_dbkey"`
		Amount    string `json:"amount"`
		Cuid      string `json:"cuid"`
		RequestID string `json:"request_id,omitempty"`
		Iat       int64  `json:"iat,omitempty"`
	}{clientID, record.UserDBKey, record.Amount, record.Cuid, record.RequestID, iat}
	return json.Marshal(payload)
}

// GCMAdditionalData is what every authenticated payload is bound to: its provider's client id.
func GCMAdditionalData(clientID string) []byte {
	return []byte("dauth/content-payload/v1:" + clientID)
}

// Encrypt returns the encrypted_message for record, as Record would send it.
func (c *ContentConsumer) Encrypt(record Consumption) (string, error) {
	var iat int64
	if c.form == PayloadGCM {
		iat = time.Now().Unix()
	}
	plaintext, err := ConsumptionPlaintext(c.clientID, record, iat)
	if err != nil {
		return "", err
	}
	block, err := aes.NewCipher(c.key)
	if err != nil {
		return "", err
	}
	if c.form == PayloadCTR {
		out := make([]byte, len(plaintext))
		cipher.NewCTR(block, c.iv).XORKeyStream(out, plaintext)
		return hex.EncodeToString(out), nil
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("dauth: generating the IV: %w", err)
	}
	// Seal appends ciphertext ‖ tag to the nonce: iv ‖ ciphertext ‖ tag.
	return "gcm1:" + hex.EncodeToString(gcm.Seal(nonce, nonce, plaintext, GCMAdditionalData(c.clientID))), nil
}

// Record deducts the amount from the slot's content tokens and adds it to used_balances. A refusal
// is a *ConsumptionError (nothing changed); no answer is a *RequestError (retry with the same
// RequestID), or the context's error.
func (c *ContentConsumer) Record(ctx context.Context, record Consumption) (*ConsumptionResult, error) {
	message, err := c.Encrypt(record)
	if err != nil {
		return nil, err
	}
	encoded, _ := json.Marshal(map[string]string{"encrypted_message": message, "client_id": c.clientID})
	const path = "/v1/development-api/increase_used_content_token"
	request, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+path, bytes.NewReader(encoded))
	if err != nil {
		return nil, err
	}
	request.Header.Set("Content-Type", "application/json")
	request.Header.Set("Accept", "application/json")
	if c.authorization != "" {
		request.Header.Set("Authorization", c.authorization)
	}
	answer, err := c.httpClient.Do(request)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &RequestError{URL: c.baseURL + path, Err: err}
	}
	defer answer.Body.Close()
	body, err := io.ReadAll(io.LimitReader(answer.Body, maxResponseBytes))
	if err != nil {
		return nil, &RequestError{URL: c.baseURL + path, Err: err}
	}
	var envelope struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &envelope) != nil {
		return nil, &MalformedResponseError{What: "body is not JSON", StatusCode: answer.StatusCode}
	}
	if (answer.StatusCode != http.StatusOK && answer.StatusCode != http.StatusAccepted) || !envelope.Success {
		if envelope.Message == "" {
			envelope.Message = "no error message"
		}
		return nil, &ConsumptionError{StatusCode: answer.StatusCode, ErrorCode: envelope.Error, Message: envelope.Message}
	}
	result := &ConsumptionResult{Status: "included"}
	if answer.StatusCode == http.StatusAccepted {
		result.Status = "queued"
	}
	if err := json.Unmarshal(body, result); err != nil {
		return nil, &MalformedResponseError{What: "consumption result has mistyped fields", StatusCode: answer.StatusCode}
	}
	if result.Status == "included" && (result.TxHash == "" || result.UsedBalances == "") {
		return nil, &MalformedResponseError{What: "an included record without tx_hash or used_balances", StatusCode: answer.StatusCode}
	}
	return result, nil
}
