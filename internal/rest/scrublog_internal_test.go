package rest

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// A scrubbing logger hides the secrets wherever a record carries them:
// the message, attributes bound with With (under a group or not), groups,
// errors, and values printed with %v; and it hides a secret the set
// learns after the attributes were bound, as it hides one in the message.
func TestScrubbingLoggerHidesSecretsEverywhere(t *testing.T) {
	t.Parallel()
	const early, late, later = "early-SECRET-1111", "late-SECRET-22222", "later-SECRET-333"
	var out bytes.Buffer
	set := NewSecrets(early)
	l := scrubbingLogger(slog.New(slog.NewJSONHandler(&out, nil)), set)
	if scrubbingLogger(l, set) != l {
		t.Error("a scrubbing logger was wrapped again")
	}
	bound := l.With("url", "https://x.invalid/?t="+early, "later", "id="+late+" "+later).WithGroup("req").With("auth", "Bearer "+late)
	set.Add(late)
	bound.Info("sent "+early,
		"err", errors.New("refused "+late),
		slog.Group("hdr", "authorization", "Bearer "+early),
		"v", struct{ Token string }{late},
		"n", 7)
	// The bound attributes were scrubbed for the first record; a secret
	// learned after it is hidden in them too.
	set.Add(later)
	bound.WithGroup("").Info("again")
	records := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(records) != 2 {
		t.Fatalf("want two records, got %q", records)
	}
	// later was no secret yet when the first record was logged.
	for i, hidden := range [][]string{{early, late}, {early, late, later}} {
		for _, s := range hidden {
			if strings.Contains(records[i], s) {
				t.Errorf("record %d shows %q: %s", i+1, s, records[i])
			}
		}
	}
	got := records[0]
	for _, want := range []string{`"url"`, `"later"`, `"req":{`, `"auth"`, `"hdr":{`, `"n":7`, Redacted} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %s: %s", want, got)
		}
	}
}
