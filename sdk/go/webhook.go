package dauth

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookEvent is one verified webhook delivery (docs/webhooks.md). ID is its webhook-id, the same on
// every retry: deduplicate by it. Data always has "client_id"; ids and amounts are strings.
type WebhookEvent struct {
	ID        string
	Type      string
	Timestamp string
	Data      map[string]any
}

// ErrWebhookVerification is returned (wrapped) for a delivery that is not authentic or not a dauth event.
var ErrWebhookVerification = errors.New("dauth: webhook verification failed")

// WebhookTolerance is how far a delivery's webhook-timestamp may be from now (replay window).
const WebhookTolerance = 5 * time.Minute

func webhookError(reason string) error {
	return fmt.Errorf("%w: %s", ErrWebhookVerification, reason)
}

// VerifyWebhook checks a delivery as Standard Webhooks defines it: any "v1," signature of the
// webhook-signature header (two during a secret rotation) is the HMAC-SHA256 of
// "webhook-id.webhook-timestamp.body" under one of secrets ("whsec_..."), compared in constant time,
// and the timestamp is within WebhookTolerance of now. body must be the raw request body.
func VerifyWebhook(body []byte, header http.Header, secrets ...string) (*WebhookEvent, error) {
	return verifyWebhookAt(body, header, time.Now(), secrets...)
}

func verifyWebhookAt(body []byte, header http.Header, now time.Time, secrets ...string) (*WebhookEvent, error) {
	id := header.Get("webhook-id")
	timestamp := header.Get("webhook-timestamp")
	signatures := header.Get("webhook-signature")
	if id == "" || timestamp == "" || signatures == "" {
		return nil, webhookError("missing required headers")
	}
	sent, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil || len(timestamp) > 15 {
		return nil, webhookError("invalid webhook-timestamp")
	}
	skew := now.Unix() - sent
	if skew > int64(WebhookTolerance/time.Second) {
		return nil, webhookError("message timestamp too old")
	}
	if -skew > int64(WebhookTolerance/time.Second) {
		return nil, webhookError("message timestamp too new")
	}
	signed := make([]byte, 0, len(id)+len(timestamp)+2+len(body))
	signed = append(append(append(signed, id...), '.'), timestamp...)
	signed = append(append(signed, '.'), body...)
	var offered [][]byte
	for _, part := range strings.Split(signatures, " ") {
		version, value, ok := strings.Cut(part, ",")
		if !ok || version != "v1" || value == "" {
			continue
		}
		if decoded, err := base64.StdEncoding.DecodeString(value); err == nil {
			offered = append(offered, decoded)
		}
	}
	valid := false
	for _, secret := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil {
			continue
		}
		mac := hmac.New(sha256.New, key)
		mac.Write(signed)
		expected := mac.Sum(nil)
		for _, candidate := range offered {
			// Every comparison runs, each in constant time.
			if hmac.Equal(candidate, expected) {
				valid = true
			}
		}
	}
	if !valid {
		return nil, webhookError("no matching signature found")
	}
	var event struct {
		Type      *string        `json:"type"`
		Timestamp string         `json:"timestamp"`
		Data      map[string]any `json:"data"`
	}
	decoder := json.NewDecoder(bytes.NewReader(body))
	decoder.UseNumber()
	if err := decoder.Decode(&event); err != nil || event.Type == nil || event.Data == nil {
		return nil, webhookError("the body is not a dauth event")
	}
	return &WebhookEvent{ID: id, Type: *event.Type, Timestamp: event.Timestamp, Data: event.Data}, nil
}
