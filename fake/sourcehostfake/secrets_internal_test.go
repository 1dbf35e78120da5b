package sourcehostfake

import (
	"regexp"
	"testing"
)

// Every secret the fake makes is its kind's prefix and random bytes in
// hex, as randomSecret writes them: personal access, job and trigger
// tokens keep the shapes they had when each kind had its own generator.
func TestRandomSecretShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prefix string
		n      int
		want   string
	}{
		{patPrefix, 15, `^shpat-[0-9a-f]{30}$`},
		{jobTokenPrefix, 15, `^shjob-[0-9a-f]{30}$`},
		{triggerTokenPrefix, 20, `^shptt-[0-9a-f]{40}$`},
		{"", 32, `^[0-9a-f]{64}$`},
	} {
		a, b := randomSecret(tc.prefix, tc.n), randomSecret(tc.prefix, tc.n)
		if !regexp.MustCompile(tc.want).MatchString(a) {
			t.Errorf("randomSecret(%q, %d) = %q, want %s", tc.prefix, tc.n, a, tc.want)
		}
		if a == b {
			t.Errorf("randomSecret(%q, %d) made %q twice", tc.prefix, tc.n, a)
		}
	}
}
