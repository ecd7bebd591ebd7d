// Command backend is a complete game backend on net/http: the game client posts the user's dauth
// login JWT to /login, and the backend turns it into slot information and keeps the tokens
// server-side.
//
//	DAUTH_CLIENT_ID=… DAUTH_CLIENT_SECRET=… DAUTH_REDIRECT_URI=http://127.0.0.1:3000/dauth/callback \
//	go run ./examples/backend
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	dauth "github.com/dauth/dauth/sdk/go"
)

type session struct {
	slot   *dauth.SlotInfo
	userID string
}

type backend struct {
	client   *dauth.Client
	mu       sync.Mutex
	sessions map[string]session // tokens stay on the server; use a real store in production
}

func main() {
	client, err := dauth.New(dauth.Config{
		ClientID:     os.Getenv("DAUTH_CLIENT_ID"),
		ClientSecret: os.Getenv("DAUTH_CLIENT_SECRET"),
		// Must equal the registered redirect_uri exactly, and reach this process.
		RedirectURI:   os.Getenv("DAUTH_REDIRECT_URI"),
		AuthServerURL: os.Getenv("DAUTH_URL"), // empty: http://127.0.0.1:8080
	})
	if err != nil {
		log.Fatal(err)
	}
	callback, err := url.Parse(os.Getenv("DAUTH_REDIRECT_URI"))
	if err != nil {
		log.Fatal(err)
	}
	b := &backend{client: client, sessions: map[string]session{}}

	mux := http.NewServeMux()
	// The service POSTs the authorization callback here; the handler answers anything else with 405.
	mux.Handle(callback.Path, client.CallbackHandler())
	mux.HandleFunc("/login", b.login)
	mux.HandleFunc("/logout", b.logout)

	port := os.Getenv("PORT")
	if port == "" {
		port = "3000"
	}
	server := &http.Server{Addr: "127.0.0.1:" + port, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// Pending logins fail with ErrShutdown (503) instead of hanging until their timeout.
		_ = client.Shutdown(ctx)
		_ = server.Shutdown(ctx)
	}()
	log.Printf("game backend on http://%s", server.Addr)
	if err := server.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

func (b *backend) login(w http.ResponseWriter, r *http.Request) {
	var body struct {
		JWT string `json:"jwt"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	// The request's context: a game client that hangs up ends the call (499).
	slot, err := b.client.GetSlotInfo(r.Context(), dauth.SlotInfoRequest{JWT: body.JWT})
	if err != nil {
		writeJSON(w, dauth.HTTPStatus(err), map[string]string{"error": err.Error()})
		return
	}
	userID := userIDOf(body.JWT)
	b.mu.Lock()
	b.sessions[slot.ID.String()] = session{slot: slot, userID: userID}
	b.mu.Unlock()
	// Never blocks the login: a failed report is logged and returned.
	b.client.ReportLogin(r.Context(), slot.AccessToken, userID)
	// The id as a decimal string: exact in every client language.
	writeJSON(w, http.StatusOK, map[string]string{"slot_id": slot.ID.String(), "nickname": slot.TokenNickname})
}

func (b *backend) logout(w http.ResponseWriter, r *http.Request) {
	var body struct {
		SlotID string `json:"slot_id"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	b.mu.Lock()
	s, ok := b.sessions[body.SlotID]
	delete(b.sessions, body.SlotID)
	b.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "unknown slot"})
		return
	}
	b.client.ReportLogout(r.Context(), s.slot.AccessToken, s.userID)
	if err := b.client.Logout(r.Context(), s.slot.AccessToken); err != nil {
		log.Printf("logout failed: %v", err)
	}
	writeJSON(w, http.StatusOK, map[string]bool{"logged_out": true})
}

// userIDOf reads the sub of the login JWT; the service checks it against the access token.
func userIDOf(jwt string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) < 2 {
		return ""
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Sub string `json:"sub"`
	}
	_ = json.Unmarshal(payload, &claims)
	return claims.Sub
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
