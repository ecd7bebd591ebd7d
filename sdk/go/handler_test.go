package dauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCallbackHandlerCarriers(t *testing.T) {
	s := newSetup(t, func(f *fakeDauth) { f.callback = "none" }, "")
	post := func(path, contentType, body string) int {
		answer, err := http.Post(s.app.URL+path, contentType, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		answer.Body.Close()
		return answer.StatusCode
	}
	for _, c := range []struct {
		name, path, contentType, body string
		rejected                      bool
	}{
		{"json", "/dauth/callback", "application/json", `{"success":1,"code":"never-issued","state":"%s"}`, false},
		{"form", "/dauth/callback", "application/x-www-form-urlencoded; charset=utf-8", "success=1&code=never-issued&state=%s", false},
		{"query", "/dauth/callback?success=0&state=%s", "text/plain", "", true},
	} {
		c := c
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := s.client.GetSlotInfo(context.Background(), SlotInfoRequest{JWT: "user-jwt", Timeout: 5 * time.Second})
				done <- err
			}()
			var state string
			for state == "" {
				time.Sleep(5 * time.Millisecond)
				if requests := s.dauth.requestsTo("/v1/oauth-meta/authorize"); len(requests) > 0 {
					state = requests[len(requests)-1].query.Get("state")
					if s.client.pending.get(state) == nil {
						state = ""
					}
				}
			}
			path, body := c.path, c.body
			if strings.Contains(path, "%s") {
				path = strings.Replace(path, "%s", state, 1)
			} else {
				body = strings.Replace(body, "%s", state, 1)
			}
			if status := post(path, c.contentType, body); status != 200 {
				t.Fatalf("callback answered %d", status)
			}
			err := <-done
			if c.rejected {
				expectStatus(t, err, ErrCallbackRejected, 502)
			} else if envelopeError, ok := err.(*EnvelopeError); !ok || envelopeError.Code != 570 {
				// The fake never issued the code: reaching get_token proves the callback matched.
				t.Fatalf("error %v, want the exchange to have run (570)", err)
			}
		})
	}
}

func TestCallbackHandlerAcceptsPostOnlyAndBoundsTheBody(t *testing.T) {
	client, _ := New(Config{ClientID: "c", ClientSecret: "s", RedirectURI: "http://127.0.0.1:1/cb"})
	handler := client.CallbackHandler()

	get := httptest.NewRecorder()
	handler.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "/cb?success=1&code=c&state=s", nil))
	if get.Code != http.StatusMethodNotAllowed || get.Header().Get("Allow") != "POST" {
		t.Fatalf("GET answered %d, Allow %q", get.Code, get.Header().Get("Allow"))
	}
	large := httptest.NewRecorder()
	handler.ServeHTTP(large, httptest.NewRequest(http.MethodPost, "/cb", strings.NewReader(strings.Repeat("x", 70_000))))
	if large.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body answered %d", large.Code)
	}
	garbage := httptest.NewRecorder()
	handler.ServeHTTP(garbage, httptest.NewRequest(http.MethodPost, "/cb", strings.NewReader("{not json")))
	if garbage.Code != http.StatusOK {
		t.Fatalf("garbage answered %d", garbage.Code)
	}
}
