package cloudauthfake

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocSaysTheLoginRefusals (issue 37, finding 5): the package doc
// gives each 400 a login is refused with, with the text the fake answers
// (it once gave the bad-JSON text for a login without a password).
func TestDocSaysTheLoginRefusals(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	// The doc comment as one line of prose.
	doc := regexp.MustCompile(`\s*\n//\s*`).ReplaceAllString(string(b), " ")
	for cause, msg := range map[string]string{
		"lacks username or password": missingCredentials,
		"is not JSON":                badJSON,
	} {
		want := cause + `, answers 400 "` + msg + `"`
		if !strings.Contains(doc, want) {
			t.Errorf("doc.go does not say %q", want)
		}
	}
}
