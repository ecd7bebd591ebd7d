package dauth

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The content consumer against a loopback stand-in of increase_used_content_token: what goes over
// the wire, decrypted independently. The live service accepts both forms in e2e_test.go.

const (
	testCTRKey = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"
	testCTRIV  = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
	testSlot   = "1234567890123456789"
)

var testGCMKey = strings.Repeat("1f", 32)

type consumeRequest struct {
	authorization string
	body          map[string]string
}

func consumeService(t *testing.T, status int, answer string) (*httptest.Server, *[]consumeRequest) {
	t.Helper()
	var received []consumeRequest
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]string
		_ = json.Unmarshal(raw, &body)
		received = append(received, consumeRequest{authorization: r.Header.Get("Authorization"), body: body})
		reply(w, status, answer)
	}))
	t.Cleanup(server.Close)
	return server, &received
}

const includedAnswer = `{"success":true,"cuid":"game-1","slot":"0x5fbdb2315678afecb367f032d93f642f64180aa3",` +
	`"user_dbkey":"1234567890123456789","amount":"5","request_id":"r-1","tx_hash":"0xabab","balance":"95","used_balances":"5"}`

func TestContentConsumerSendsTheCTRFormWithoutAuthorization(t *testing.T) {
	server, received := consumeService(t, 200, includedAnswer)
	consumer, err := NewContentConsumer(ContentConfig{ClientID: "client-1", Form: PayloadCTR, Key: testCTRKey, IV: testCTRIV, AuthServerURL: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	result, err := consumer.Record(context.Background(), Consumption{UserDBKey: testSlot, Amount: "5", Cuid: "game-1", RequestID: "r-1"})
	if err != nil {
		t.Fatal(err)
	}
	if result.Status != "included" || result.TxHash != "0xabab" || result.Balance != "95" || result.UsedBalances != "5" || result.UserDBKey != testSlot {
		t.Fatalf("result %+v", result)
	}
	request := (*received)[0]
	if request.authorization != "" || request.body["client_id"] != "client-1" {
		t.Fatalf("request %+v", request)
	}
	ciphertext, _ := hex.DecodeString(request.body["encrypted_message"])
	key, _ := hex.DecodeString(testCTRKey)
	iv, _ := hex.DecodeString(testCTRIV)
	block, _ := aes.NewCipher(key)
	plaintext := make([]byte, len(ciphertext))
	cipher.NewCTR(block, iv).XORKeyStream(plaintext, ciphertext)
	want := `{"client_id":"client-1","user_dbkey":"1234567890123456789","amount":"5","cuid":"game-1","request_id":"r-1"}`
	if string(plaintext) != want {
		t.Fatalf("plaintext %s, want %s", plaintext, want)
	}
}

// The vector the TypeScript and Python SDKs check too (Node's aes-256-ctr, the counter wrapping).
func TestCTRVectorMatchesOpenSSL(t *testing.T) {
	consumer, err := NewContentConsumer(ContentConfig{ClientID: "c", Form: PayloadCTR, Key: testCTRKey, IV: "fffffffffffffffffffffffffffffffe"})
	if err != nil {
		t.Fatal(err)
	}
	message, err := consumer.Encrypt(Consumption{UserDBKey: testSlot, Amount: "5", Cuid: "game-1"})
	want := "34bfd42e7c3fab769dc74c20011155c6171e5c52ad287bbaf8ad63b74f2742fdd75bc2b4a2f84eef277c7ef377259e63" +
		"a92c3c71291b7274b5b9d8f2941c64c63b2c40a41a38f0ef5b815be51ee4f93135"
	if err != nil || message != want {
		t.Fatalf("Encrypt = %s, %v", message, err)
	}
}

func TestContentConsumerSendsTheGCMFormWithBasicClientAuthentication(t *testing.T) {
	server, received := consumeService(t, 202, strings.Replace(includedAnswer, `"success":true`, `"success":true,"status":"queued"`, 1))
	consumer, err := NewContentConsumer(ContentConfig{ClientID: "client 1", ClientSecret: "s3cr:t", Form: PayloadGCM, Key: testGCMKey, AuthServerURL: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Unix()
	for i := 0; i < 2; i++ {
		result, err := consumer.Record(context.Background(), Consumption{UserDBKey: testSlot, Amount: "5", Cuid: "game-1"})
		if err != nil || result.Status != "queued" {
			t.Fatalf("record: %+v, %v", result, err)
		}
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("client+1:s3cr%3At"))
	first, second := (*received)[0], (*received)[1]
	if first.authorization != basic || second.authorization != basic {
		t.Fatalf("authorization %q, want %q", first.authorization, basic)
	}
	if first.body["encrypted_message"] == second.body["encrypted_message"] {
		t.Fatal("the same record gave the same message: the IV was not fresh")
	}
	raw, err := hex.DecodeString(strings.TrimPrefix(first.body["encrypted_message"], "gcm1:"))
	if err != nil || !strings.HasPrefix(first.body["encrypted_message"], "gcm1:") {
		t.Fatalf("message %q", first.body["encrypted_message"])
	}
	key, _ := hex.DecodeString(testGCMKey)
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	if _, err := gcm.Open(nil, raw[:12], raw[12:], GCMAdditionalData("client 2")); err == nil {
		t.Fatal("the message opened under another client id")
	}
	plaintext, err := gcm.Open(nil, raw[:12], raw[12:], GCMAdditionalData("client 1"))
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	_ = json.Unmarshal(plaintext, &fields)
	if fields["client_id"] != "client 1" || fields["user_dbkey"] != testSlot || fields["amount"] != "5" || fields["cuid"] != "game-1" {
		t.Fatalf("payload %s", plaintext)
	}
	if iat, ok := fields["iat"].(float64); !ok || int64(iat) < before || int64(iat) > time.Now().Unix() {
		t.Fatalf("iat in %s", plaintext)
	}
}

func TestContentConsumerRefusalsAndBadInput(t *testing.T) {
	server, received := consumeService(t, 409, `{"success":false,"error":"insufficient_balance","message":"Not enough content tokens"}`)
	consumer, _ := NewContentConsumer(ContentConfig{ClientID: "c", Form: PayloadGCM, Key: testGCMKey, AuthServerURL: server.URL})
	_, err := consumer.Record(context.Background(), Consumption{UserDBKey: testSlot, Amount: "1", Cuid: "g"})
	var refused *ConsumptionError
	if !errors.As(err, &refused) || refused.StatusCode != 409 || refused.ErrorCode != "insufficient_balance" ||
		err.Error() != "consumption refused (HTTP 409, insufficient_balance): Not enough content tokens" {
		t.Fatalf("refusal: %v", err)
	}
	for _, record := range []Consumption{
		{UserDBKey: "12a", Amount: "1", Cuid: "g"},
		{UserDBKey: testSlot, Amount: "0", Cuid: "g"},
		{UserDBKey: testSlot, Amount: "1.5", Cuid: "g"},
		{UserDBKey: testSlot, Amount: "1", Cuid: ""},
	} {
		if _, err := consumer.Record(context.Background(), record); err == nil {
			t.Errorf("%+v was accepted", record)
		}
	}
	if len(*received) != 1 {
		t.Fatalf("%d requests, want only the first", len(*received))
	}
	for name, config := range map[string]ContentConfig{
		"short IV":  {ClientID: "c", Form: PayloadCTR, Key: testCTRKey, IV: "ab"},
		"bad key":   {ClientID: "c", Form: PayloadGCM, Key: strings.Repeat("zz", 32)},
		"no form":   {ClientID: "c", Key: testGCMKey},
		"no client": {Form: PayloadGCM, Key: testGCMKey},
	} {
		if _, err := NewContentConsumer(config); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	truncated, _ := consumeService(t, 200, `{"success":true}`)
	other, _ := NewContentConsumer(ContentConfig{ClientID: "c", Form: PayloadGCM, Key: testGCMKey, AuthServerURL: truncated.URL})
	var malformed *MalformedResponseError
	if _, err := other.Record(context.Background(), Consumption{UserDBKey: testSlot, Amount: "1", Cuid: "g"}); !errors.As(err, &malformed) {
		t.Fatalf("truncated success: %v", err)
	}
}
