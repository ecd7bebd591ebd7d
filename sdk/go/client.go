package dauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

const (
	// DefaultAuthServerURL is the service's address when Config.AuthServerURL is empty.
	DefaultAuthServerURL = "http://127.0.0.1:8080"
	// DefaultCallbackTimeout is how long GetSlotInfo waits for the callback by default.
	DefaultCallbackTimeout = 15 * time.Second
	// DefaultHTTPTimeout bounds each request of the default HTTP client.
	DefaultHTTPTimeout = 15 * time.Second
)

// HTTPClient sends requests to the service; *http.Client satisfies it.
type HTTPClient interface {
	Do(*http.Request) (*http.Response, error)
}

// Logger receives the failures the SDK swallows (login-status reports); *log.Logger satisfies it.
type Logger interface {
	Printf(format string, args ...any)
}

// Config configures a Client.
type Config struct {
	ClientID string
	// ClientSecret stays on the server: never send it, or the Client, to a browser.
	ClientSecret string
	// RedirectURI is the callback URL exactly as registered (scheme, host, port, path, trailing
	// slash). It is sent byte for byte.
	RedirectURI string
	// AuthServerURL is the service's base URL; DefaultAuthServerURL when empty.
	AuthServerURL string
	// HTTPClient defaults to an *http.Client with a 15 s timeout.
	HTTPClient HTTPClient
	// Logger defaults to log.Default().
	Logger Logger
}

// Client runs the backend integration flow for one app. Create one per process with New: it
// holds the pending calls, and the callback must reach the process that made the call.
type Client struct {
	clientID     string
	clientSecret string
	redirectURI  string
	baseURL      string
	httpClient   HTTPClient
	logger       Logger
	pending      pendingSet

	mu       sync.Mutex
	shutDown bool
	// exchanges counts the detached code exchanges, which Shutdown waits for.
	exchanges sync.WaitGroup
	// deviceSleep waits between device-code polls; nil is a real, context-aware wait (tests record it).
	deviceSleep func(ctx context.Context, d time.Duration) error
}

// New validates the configuration and returns a Client.
func New(config Config) (*Client, error) {
	if config.ClientID == "" || config.ClientSecret == "" || config.RedirectURI == "" {
		return nil, errors.New("dauth: ClientID, ClientSecret and RedirectURI are required")
	}
	if _, err := httpURL("RedirectURI", config.RedirectURI); err != nil {
		return nil, err
	}
	base := config.AuthServerURL
	if base == "" {
		base = DefaultAuthServerURL
	}
	parsed, err := httpURL("AuthServerURL", base)
	if err != nil {
		return nil, err
	}
	if parsed.RawQuery != "" || parsed.Fragment != "" {
		return nil, errors.New("dauth: AuthServerURL must not have a query or fragment")
	}
	client := &Client{
		clientID:     config.ClientID,
		clientSecret: config.ClientSecret,
		redirectURI:  config.RedirectURI,
		baseURL:      strings.TrimRight(base, "/"),
		httpClient:   config.HTTPClient,
		logger:       config.Logger,
	}
	if client.httpClient == nil {
		client.httpClient = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	if client.logger == nil {
		client.logger = log.Default()
	}
	return client, nil
}

func httpURL(name, value string) (*url.URL, error) {
	parsed, err := url.Parse(value)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return nil, fmt.Errorf("dauth: %s must be an absolute http or https URL", name)
	}
	return parsed, nil
}

// String describes the client without its secret; fmt uses it for %v and %s.
func (c *Client) String() string {
	return fmt.Sprintf("dauth.Client{ClientID: %q, RedirectURI: %q, AuthServerURL: %q}", c.clientID, c.redirectURI, c.baseURL)
}

// GoString keeps the secret out of %#v as well.
func (c *Client) GoString() string { return c.String() }

// SlotInfoRequest is the input of GetSlotInfo.
type SlotInfoRequest struct {
	// JWT is the user's login JWT; empty gives ErrMissingJWT (400).
	JWT string
	// Timeout is how long to wait for the callback; DefaultCallbackTimeout when zero.
	Timeout time.Duration
}

// GetSlotInfo runs authorize for the user's JWT, waits for the callback carrying this call's
// state, exchanges its code and returns the slot. HTTPStatus maps its errors to the status to
// answer with; a cancelled ctx gives context.Canceled (499), an expired one context.DeadlineExceeded
// (504).
func (c *Client) GetSlotInfo(ctx context.Context, request SlotInfoRequest) (*SlotInfo, error) {
	if c.isShutDown() {
		return nil, ErrShutdown
	}
	if strings.TrimSpace(request.JWT) == "" {
		return nil, ErrMissingJWT
	}
	timeout := request.Timeout
	if timeout == 0 {
		timeout = DefaultCallbackTimeout
	}
	if timeout < 0 {
		return nil, errors.New("dauth: timeout must not be negative")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	state, err := newState()
	if err != nil {
		return nil, err
	}
	// Registered before authorize: the callback may arrive before authorize's answer does. Checked
	// and registered under c.mu, so that a concurrent Shutdown either refuses or fails the call.
	c.mu.Lock()
	if c.shutDown {
		c.mu.Unlock()
		return nil, ErrShutdown
	}
	call := c.pending.open(ctx, state, timeout)
	c.mu.Unlock()
	defer c.pending.close(call)

	if err := c.authorize(call.ctx, request.JWT, state); err != nil {
		// A timeout or shutdown aborts authorize; report that, not the abort it caused.
		if failure := call.failure(); failure != nil {
			return nil, failure
		}
		return nil, err
	}
	select {
	case <-call.done:
		return call.slot, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func newState() (string, error) {
	var random [32]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", fmt.Errorf("dauth: generating state: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(random[:]), nil
}

func (c *Client) isShutDown() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shutDown
}

// Shutdown fails every pending call with ErrShutdown and refuses later slot-info calls. It then
// waits, up to ctx, for detached code exchanges to stop.
func (c *Client) Shutdown(ctx context.Context) error {
	c.mu.Lock()
	c.shutDown = true
	c.pending.failAll(ErrShutdown)
	c.mu.Unlock()
	stopped := make(chan struct{})
	go func() {
		c.exchanges.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Refresh exchanges a refresh token for fresh slot information (get_token, grant_type
// refresh_token).
func (c *Client) Refresh(ctx context.Context, refreshToken string) (*SlotInfo, error) {
	return c.getToken(ctx, map[string]string{"grant_type": "refresh_token", "refresh_token": refreshToken})
}

// Logout revokes the token pair of accessToken and sets the user's status to logged_out.
func (c *Client) Logout(ctx context.Context, accessToken string) error {
	answer, err := c.send(ctx, http.MethodPost, "/v1/oauth-meta/user/logout", accessToken, nil)
	if err != nil {
		return err
	}
	parsed, err := parseEnvelope(answer.body, answer.status)
	if err != nil {
		return err
	}
	if parsed.Code != 1 {
		return &EnvelopeError{Operation: "logout", Code: parsed.Code, Message: parsed.Message}
	}
	return nil
}
