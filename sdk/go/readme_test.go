package dauth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README quotes examples/backend/main.go (compiled by go vet and go build); keep them equal.
func TestReadmeQuotesTheExampleVerbatim(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	source, err := os.ReadFile(filepath.Join("examples", "backend", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	block := "```go\n" + strings.TrimRight(string(source), "\n") + "\n```"
	if !strings.Contains(string(readme), block) {
		t.Fatal("README.md does not quote examples/backend/main.go verbatim")
	}
}
