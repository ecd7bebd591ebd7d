package dauth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README opens with the quick start: the body of examples/quickstart/main.go (compiled by go
// vet and go build, run against a live dauth by installFromScratch.test.ts), verbatim, at most 15 lines.
func TestReadmeOpensWithTheQuickStartVerbatim(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	source, err := os.ReadFile(filepath.Join("examples", "quickstart", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(source)
	main := strings.TrimRight(text[strings.Index(text, "func main() {"):], "\n")
	if lines := strings.Count(main, "\n") + 1; lines > 15 {
		t.Fatalf("the quick start has %d lines", lines)
	}
	first := strings.Index(string(readme), "```")
	if first < 0 || !strings.HasPrefix(string(readme)[first:], "```go\n"+main+"\n```") {
		t.Fatal("README.md does not open with the body of examples/quickstart/main.go")
	}
}
