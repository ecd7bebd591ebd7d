// Command quickstart turns one login JWT into slot information: the README's quick start.
//
//	DAUTH_URL=http://127.0.0.1:8080 DAUTH_CLIENT_ID=… DAUTH_CLIENT_SECRET=… \
//	DAUTH_REDIRECT_URI=http://127.0.0.1:3000/dauth/callback USER_JWT=… go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"

	dauth "github.com/dauth/dauth/sdk/go"
)

func main() {
	redirect := os.Getenv("DAUTH_REDIRECT_URI") // exactly as registered
	client, err := dauth.New(dauth.Config{ClientID: os.Getenv("DAUTH_CLIENT_ID"),
		ClientSecret: os.Getenv("DAUTH_CLIENT_SECRET"), RedirectURI: redirect, AuthServerURL: os.Getenv("DAUTH_URL")})
	if err != nil {
		log.Fatal(err)
	}
	callback, _ := url.Parse(redirect) // the service POSTs the callback here: serve it
	go func() { log.Fatal(http.ListenAndServe(callback.Host, client.CallbackHandler())) }()
	slot, err := client.GetSlotInfo(context.Background(), dauth.SlotInfoRequest{JWT: os.Getenv("USER_JWT")})
	if err != nil {
		log.Fatal(err) // dauth.HTTPStatus(err) is the status to answer your game client with
	}
	fmt.Printf("slot %s at %s\n", slot.ID, slot.ContentAddress) // keep slot.AccessToken server-side
}
