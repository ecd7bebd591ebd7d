package dauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
)

func statusClient(t *testing.T, baseURL string, logs *bytes.Buffer, httpClient HTTPClient) *Client {
	t.Helper()
	client, err := New(Config{
		ClientID: "client-1", ClientSecret: "secret-1", RedirectURI: "http://127.0.0.1:1/cb",
		AuthServerURL: baseURL, Logger: log.New(logs, "", 0), HTTPClient: httpClient,
	})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func TestRefreshKeepsTheIDExact(t *testing.T) {
	dauth := startFakeDauth(t, "http://127.0.0.1:1/cb")
	client := statusClient(t, dauth.server.URL, &bytes.Buffer{}, nil)
	slot, err := client.Refresh(context.Background(), "rt-1")
	if err != nil || slot.ID.String() != "1234567890123456789" || slot.AccessToken != "at-refreshed" {
		t.Fatalf("slot %+v, err %v", slot, err)
	}
	var body map[string]string
	requests := dauth.requestsTo("/v1/oauth-meta/get_token")
	_ = json.Unmarshal(requests[len(requests)-1].body, &body)
	if body["grant_type"] != "refresh_token" || body["refresh_token"] != "rt-1" || body["client_secret"] != "secret-1" {
		t.Fatalf("get_token body %v", body)
	}
	var envelopeError *EnvelopeError
	if _, err := client.Refresh(context.Background(), "stale"); !errors.As(err, &envelopeError) || envelopeError.Code != 510 {
		t.Fatalf("error %v, want code 510", err)
	}
}

// stringCodeLogout answers logout with a string code, which the contract forbids.
type stringCodeLogout struct{}

func (stringCodeLogout) Do(request *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200,
		Body:       io.NopCloser(strings.NewReader(`{"code":"1","message":"success","data":[]}`)),
		Request:    request,
	}, nil
}

func TestLogout(t *testing.T) {
	dauth := startFakeDauth(t, "http://127.0.0.1:1/cb")
	client := statusClient(t, dauth.server.URL, &bytes.Buffer{}, nil)
	if err := client.Logout(context.Background(), "at-1"); err != nil {
		t.Fatal(err)
	}
	if requests := dauth.requestsTo("/v1/oauth-meta/user/logout"); requests[0].authorization != "Bearer at-1" {
		t.Fatalf("authorization %q", requests[0].authorization)
	}
	injected := statusClient(t, dauth.server.URL, &bytes.Buffer{}, stringCodeLogout{})
	var malformed *MalformedResponseError
	if err := injected.Logout(context.Background(), "at-1"); !errors.As(err, &malformed) {
		t.Fatalf("error %v, want a malformed response", err)
	}
}

func TestReportsReturnTheStatus(t *testing.T) {
	dauth := startFakeDauth(t, "http://127.0.0.1:1/cb")
	client := statusClient(t, dauth.server.URL, &bytes.Buffer{}, nil)
	login := client.ReportLogin(context.Background(), "at-good", "42")
	if !login.OK || login.Status.Status != "logged_in" || login.Status.UserID != "42" {
		t.Fatalf("login report %+v", login)
	}
	logout := client.ReportLogout(context.Background(), "at-good", "42")
	if !logout.OK || logout.Status.Status != "logged_out" || logout.Status.TransferEnabled == nil || !*logout.Status.TransferEnabled {
		t.Fatalf("logout report %+v", logout)
	}
	requests := dauth.requestsTo("/v1/oauth/status/logout")
	var body map[string]string
	_ = json.Unmarshal(requests[0].body, &body)
	if requests[0].authorization != "Bearer at-good" || body["user_id"] != "42" || body["client_id"] != "client-1" {
		t.Fatalf("request %+v, body %v", requests[0], body)
	}
}

func TestAFailedReportIsReturnedAndLoggedNeverRaised(t *testing.T) {
	dauth := startFakeDauth(t, "http://127.0.0.1:1/cb")
	var logs bytes.Buffer
	client := statusClient(t, dauth.server.URL, &logs, nil)
	report := client.ReportLogin(context.Background(), "at-bad", "42")
	var statusError *StatusError
	if report.OK || !errors.As(report.Err, &statusError) || statusError.StatusCode != 401 || statusError.ErrorCode != "invalid_token" {
		t.Fatalf("report %+v", report)
	}
	if !strings.Contains(logs.String(), "reporting login failed") || strings.Contains(logs.String(), "at-bad") {
		t.Fatalf("log %q", logs.String())
	}

	listener, _ := net.Listen("tcp", "127.0.0.1:0")
	address := listener.Addr().String()
	listener.Close()
	logs.Reset()
	offline := statusClient(t, "http://"+address, &logs, nil)
	if report := offline.ReportLogout(context.Background(), "at-good", "42"); report.OK || report.Err == nil {
		t.Fatalf("report %+v", report)
	}
	if !strings.Contains(logs.String(), "reporting logout failed") {
		t.Fatalf("log %q", logs.String())
	}
}

func TestCheckStatus(t *testing.T) {
	dauth := startFakeDauth(t, "http://127.0.0.1:1/cb")
	client := statusClient(t, dauth.server.URL, &bytes.Buffer{}, nil)
	status, err := client.CheckStatus(context.Background(), "at-good", "42")
	if err != nil || status.Status != "logged_out" || status.UserID != "42" {
		t.Fatalf("status %+v, err %v", status, err)
	}
	if requests := dauth.requestsTo("/v1/oauth/status/check"); requests[0].query.Get("client_id") != "client-1" {
		t.Fatalf("query %v", requests[0].query)
	}
	var statusError *StatusError
	if _, err := client.CheckStatus(context.Background(), "at-bad", "42"); !errors.As(err, &statusError) {
		t.Fatalf("error %v", err)
	}
}
