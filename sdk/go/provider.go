package dauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Consumption settings of a content provider (docs/content-tokens.md).
const (
	// PayloadModeCTR accepts the spec's AES-256-CTR form only.
	PayloadModeCTR = "ctr"
	// PayloadModeCTRAndGCM accepts both forms, while migrating.
	PayloadModeCTRAndGCM = "ctr+gcm"
	// PayloadModeGCM requires the authenticated AES-256-GCM form.
	PayloadModeGCM = "gcm"
	// ConsumeAuthNone is the spec's anonymous consumption, authenticated by the payload alone.
	ConsumeAuthNone = "none"
	// ConsumeAuthClientSecret requires the app's client_id and client_secret (HTTP Basic) on every
	// consumption call.
	ConsumeAuthClientSecret = "client_secret"
)

// ProviderConfig is one content-provider registration (init_permission_provider) made as the app's
// owner. Give the owner's Email and Password (the call signs in, so the login is fresh for the
// service's STEP_UP_MAX_AGE) or a LoginToken obtained within that time.
type ProviderConfig struct {
	// ClientID is the app the cuid belongs to.
	ClientID string
	// Cuid is the content id: 1 to 128 printable characters without spaces.
	Cuid string
	// ReleasePer is the settlement ratio on used balances, 0 to 100.
	ReleasePer int
	// OwnerAddr is the wallet that receives the provider's revenue and releases (0x…).
	OwnerAddr  string
	Email      string
	Password   string
	LoginToken string
	// PayloadMode defaults to PayloadModeGCM on the app's first provider; a later cuid keeps the
	// app's setting when empty.
	PayloadMode string
	// ConsumeAuth defaults to ConsumeAuthClientSecret on the app's first provider; a later cuid keeps
	// the app's setting when empty.
	ConsumeAuth string
	// AuthServerURL is the service's base URL; DefaultAuthServerURL when empty.
	AuthServerURL string
	// HTTPClient defaults to an *http.Client with a 15 s timeout.
	HTTPClient HTTPClient
}

// ProviderRegistration is the service's answer. The key material is set only when this call issued
// it (the app's first registration): store it then, like the client secret.
type ProviderRegistration struct {
	TxHash      string `json:"tx_hash"`
	PayloadMode string `json:"payload_mode"`
	ConsumeAuth string `json:"consume_auth"`
	// EncryptionKey (hex, 32 bytes) and EncryptionIV (hex, 16 bytes) are the spec's CTR key and IV.
	EncryptionKey string `json:"encryption_key"`
	EncryptionIV  string `json:"encryption_iv"`
	// GCMKey (hex, 32 bytes) is ContentConfig.Key for the GCM form.
	GCMKey string `json:"gcm_key"`
}

// String never shows the keys (logs, %v).
func (r ProviderRegistration) String() string {
	return fmt.Sprintf("ProviderRegistration{TxHash: %s, PayloadMode: %s, ConsumeAuth: %s}", r.TxHash, r.PayloadMode, r.ConsumeAuth)
}

// ProviderRegistrationError is a registration (or the sign-in before it) the service refused;
// nothing was registered. ErrorCode is e.g. reauthentication_required (a login older than the
// service's STEP_UP_MAX_AGE), not_client_owner or cuid_taken.
type ProviderRegistrationError struct {
	StatusCode int
	ErrorCode  string
	Message    string
}

func (e *ProviderRegistrationError) Error() string {
	code := ""
	if e.ErrorCode != "" {
		code = ", " + e.ErrorCode
	}
	return fmt.Sprintf("provider registration refused (HTTP %d%s): %s", e.StatusCode, code, e.Message)
}

// RegisterContentProvider registers config.Cuid for config.ClientID as its owner, in the strong mode
// by default, as the console, `dauth provider create` and the other SDKs do (decisions §7): the
// app's first provider gets payload_mode gcm and consume_auth client_secret (record with a
// ContentConsumer given ClientSecret, Form PayloadGCM and GCMKey). A refusal is a
// *ProviderRegistrationError; no answer is a *RequestError, or the context's error.
func RegisterContentProvider(ctx context.Context, config ProviderConfig) (*ProviderRegistration, error) {
	if config.ClientID == "" || config.Cuid == "" || config.OwnerAddr == "" {
		return nil, errors.New("dauth: ClientID, Cuid and OwnerAddr are required")
	}
	if config.ReleasePer < 0 || config.ReleasePer > 100 {
		return nil, errors.New("dauth: ReleasePer must be from 0 to 100")
	}
	switch config.PayloadMode {
	case "", PayloadModeCTR, PayloadModeCTRAndGCM, PayloadModeGCM:
	default:
		return nil, errors.New(`dauth: PayloadMode must be "ctr", "ctr+gcm" or "gcm"`)
	}
	switch config.ConsumeAuth {
	case "", ConsumeAuthNone, ConsumeAuthClientSecret:
	default:
		return nil, errors.New(`dauth: ConsumeAuth must be "none" or "client_secret"`)
	}
	if (config.LoginToken == "") == (config.Email == "" || config.Password == "") {
		return nil, errors.New("dauth: give Email and Password, or LoginToken")
	}
	base := config.AuthServerURL
	if base == "" {
		base = DefaultAuthServerURL
	}
	if _, err := httpURL("AuthServerURL", base); err != nil {
		return nil, err
	}
	api := providerAPI{baseURL: strings.TrimRight(base, "/"), httpClient: config.HTTPClient}
	if api.httpClient == nil {
		api.httpClient = &http.Client{Timeout: DefaultHTTPTimeout}
	}

	token := config.LoginToken
	if token == "" {
		status, body, err := api.call(ctx, http.MethodPost, "/v1/dev-user/login_devuser", "",
			// Bound to the app (azp): this login JWT opens no other app's authorize (decisions §8).
			map[string]string{"email": config.Email, "password": config.Password, "client_id": config.ClientID})
		if err != nil {
			return nil, err
		}
		var login struct {
			Token string `json:"token"`
		}
		if status != http.StatusOK {
			return nil, refusal(status, body)
		}
		// An owner with a second factor: Client.LoginMFA turns the error's token and a code into the
		// LoginToken to call again with.
		if err := mfaRequired(body, status); err != nil {
			return nil, err
		}
		if json.Unmarshal(body, &login) != nil || login.Token == "" {
			return nil, &MalformedResponseError{What: "a login answer without token", StatusCode: status}
		}
		token = login.Token
	}

	// The strong defaults apply to the app's first provider only, as in the console and the CLI.
	first := false
	if config.PayloadMode == "" || config.ConsumeAuth == "" {
		path := "/v1/development-api/payload_mode?" + url.Values{"client_id": {config.ClientID}}.Encode()
		status, body, err := api.call(ctx, http.MethodGet, path, token, nil)
		if err != nil {
			return nil, err
		}
		if status == http.StatusNotFound && errorCodeOf(body) == "provider_not_registered" {
			first = true
		} else if status != http.StatusOK {
			return nil, refusal(status, body)
		}
	}
	request := map[string]any{
		"client_id": config.ClientID, "cuid": config.Cuid, "release_per": config.ReleasePer, "owner_addr": config.OwnerAddr,
	}
	if mode := config.PayloadMode; mode != "" {
		request["payload_mode"] = mode
	} else if first {
		request["payload_mode"] = PayloadModeGCM
	}
	if auth := config.ConsumeAuth; auth != "" {
		request["consume_auth"] = auth
	} else if first {
		request["consume_auth"] = ConsumeAuthClientSecret
	}
	status, body, err := api.call(ctx, http.MethodPost, "/v1/development-api/init_permission_provider", token, request)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Success bool `json:"success"`
		ProviderRegistration
	}
	if status != http.StatusOK {
		return nil, refusal(status, body)
	}
	if json.Unmarshal(body, &answer) != nil {
		return nil, &MalformedResponseError{What: "body is not JSON", StatusCode: status}
	}
	if !answer.Success {
		return nil, refusal(status, body)
	}
	if answer.TxHash == "" || answer.PayloadMode == "" || answer.ConsumeAuth == "" {
		return nil, &MalformedResponseError{What: "a registration without tx_hash, payload_mode or consume_auth", StatusCode: status}
	}
	registration := answer.ProviderRegistration
	return &registration, nil
}

type providerAPI struct {
	baseURL    string
	httpClient HTTPClient
}

// call sends one JSON request and reads the whole answer.
func (a providerAPI) call(ctx context.Context, method, path, bearer string, payload any) (int, []byte, error) {
	var reader io.Reader
	if payload != nil {
		encoded, err := json.Marshal(payload)
		if err != nil {
			return 0, nil, err
		}
		reader = bytes.NewReader(encoded)
	}
	request, err := http.NewRequestWithContext(ctx, method, a.baseURL+path, reader)
	if err != nil {
		return 0, nil, err
	}
	request.Header.Set("Accept", "application/json")
	if payload != nil {
		request.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		request.Header.Set("Authorization", "Bearer "+bearer)
	}
	// The URL without its query.
	where := a.baseURL + strings.SplitN(path, "?", 2)[0]
	answer, err := a.httpClient.Do(request)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, ctx.Err()
		}
		return 0, nil, &RequestError{URL: where, Err: err}
	}
	defer answer.Body.Close()
	body, err := io.ReadAll(io.LimitReader(answer.Body, maxResponseBytes))
	if err != nil {
		return 0, nil, &RequestError{URL: where, Err: err}
	}
	return answer.StatusCode, body, nil
}

func errorCodeOf(body []byte) string {
	var envelope struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(body, &envelope)
	return envelope.Error
}

func refusal(status int, body []byte) error {
	var envelope struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &envelope) != nil {
		return &MalformedResponseError{What: "body is not JSON", StatusCode: status}
	}
	if envelope.Message == "" {
		envelope.Message = "no error message"
	}
	return &ProviderRegistrationError{StatusCode: status, ErrorCode: envelope.Error, Message: envelope.Message}
}
