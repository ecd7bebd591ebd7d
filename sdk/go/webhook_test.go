package dauth

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// webhookVectors is sdk/vectors/webhooks.json: deliveries signed by the standardwebhooks npm package
// (the Go module proxy's package cannot be fetched here, so the npm library's output is the reference).
type webhookVectors struct {
	Deliveries []struct {
		Name    string            `json:"name"`
		Secrets []string          `json:"secrets"`
		Now     int64             `json:"now"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
		Expect  struct {
			Valid bool           `json:"valid"`
			Type  string         `json:"type"`
			Data  map[string]any `json:"data"`
		} `json:"expect"`
	} `json:"deliveries"`
}

func TestVerifyWebhookVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "vectors", "webhooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors webhookVectors
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors.Deliveries) < 20 {
		t.Fatalf("only %d vectors", len(vectors.Deliveries))
	}
	for _, v := range vectors.Deliveries {
		t.Run(v.Name, func(t *testing.T) {
			header := http.Header{}
			for name, value := range v.Headers {
				header.Set(name, value)
			}
			event, err := verifyWebhookAt([]byte(v.Body), header, time.Unix(v.Now, 0), v.Secrets...)
			if !v.Expect.Valid {
				if !errors.Is(err, ErrWebhookVerification) {
					t.Fatalf("accepted an invalid delivery (err %v)", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused a valid delivery: %v", err)
			}
			if event.ID != v.Headers["webhook-id"] || event.Type != v.Expect.Type {
				t.Fatalf("event %+v", event)
			}
			got, _ := json.Marshal(event.Data)
			want, _ := json.Marshal(v.Expect.Data)
			if string(got) != string(want) {
				t.Fatalf("data %s, want %s", got, want)
			}
		})
	}
}
