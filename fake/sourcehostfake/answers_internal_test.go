package sourcehostfake

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/jsonw/jsonwtest"
)

// FuzzJoined checks a string written in pieces joined by an ASCII byte,
// then a number, against encoding/json's writing of the whole (the
// escaping itself is internal/jsonw's, fuzzed there).
func FuzzJoined(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \back\`, "<b>&amp;</b>", "tab\there\nnew\r\b\f\x00\x1f\x7f",
		"é ü 日本 🚀", "\u2028\u2029", "\xff\xfe bad", "trunc\xe2\x80", "\xf0\x9f\x98"} {
		f.Add(s, "x", int64(12), true)
	}
	f.Fuzz(func(t *testing.T, a, b string, n int64, withNum bool) {
		var j joined
		j.join(a, "/", b)
		whole := a + "/" + b
		if withNum {
			j.number(n)
			whole += strconv.FormatInt(n, 10)
		}
		want, _ := json.Marshal(whole)
		if got := j.appendJSON(nil); string(got) != string(want) {
			t.Fatalf("%q / %q (%d, %v) = %s, want %s", a, b, n, withNum, got, want)
		}
	})
}

// Generate gives jsonwtest.Check (json_gen_test.go) stamps of every
// kind: years jsonw.AppendTimeMillis writes itself and those it leaves to
// the layout.
func (stamp) Generate(rng *rand.Rand, _ int) reflect.Value {
	return reflect.ValueOf(stamp(time.Unix(rng.Int63n(400e9)-200e9, rng.Int63n(1e9)).In(time.FixedZone("x", 3600))))
}

// Generate gives jsonwtest.Check joined strings of random pieces, with
// and without a number.
func (joined) Generate(rng *rand.Rand, _ int) reflect.Value {
	var j joined
	j.n = rng.Intn(len(j.parts) + 1)
	for i := range j.n {
		j.parts[i] = jsonwtest.String(rng)
		if i%2 == 1 {
			j.parts[i] = "/" // pieces meet at an ASCII byte
		}
	}
	if j.n == 3 {
		j.parts[2] = "/" + j.parts[2]
	}
	if rng.Intn(2) == 0 {
		j.num, j.withNum = rng.Int63()-rng.Int63(), true
		if rng.Intn(2) == 0 {
			j.tail = "/" + jsonwtest.String(rng)
		}
	}
	return reflect.ValueOf(j)
}

// Generate gives jsonwtest.Check users and milestones as written holds
// them: written, or nil.
func (written) Generate(rng *rand.Rand, _ int) reflect.Value {
	if rng.Intn(4) == 0 {
		return reflect.ValueOf(written(nil))
	}
	v := userJSON{ID: rng.Int63(), Username: jsonwtest.String(rng), Name: jsonwtest.String(rng), Locked: rng.Intn(2) == 0}
	v.AvatarURL.join(jsonwtest.String(rng), "/").number(rng.Int63()).then("/x")
	v.WebURL.join(jsonwtest.String(rng))
	return reflect.ValueOf(written(v.appendJSON(nil)))
}

// Generate gives jsonwtest.Check numbered strings of random pieces,
// escaped as a numbered's pieces are (see escapedJSON).
func (numbered) Generate(rng *rand.Rand, _ int) reflect.Value {
	return reflect.ValueOf(numbered{escapedJSON(jsonwtest.String(rng)), escapedJSON("/" + jsonwtest.String(rng)), rng.Int63() - rng.Int63()})
}

// escapedJSON writes what encoding/json writes between a string's quotes,
// for every piece JSON escapes.
func TestEscapedJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	for range 1000 {
		s := jsonwtest.String(rng)
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := escapedJSON(s); `"`+got+`"` != string(want) {
			t.Fatalf("escapedJSON(%q) = %s, want %s", s, got, want)
		}
	}
}

// An ssh URL names the fake's host without its HTTP port (it was
// git@127.0.0.1:28929:alice/shop.git), IPv6 in brackets.
func TestSSHHost(t *testing.T) {
	t.Parallel()
	for base, want := range map[string]string{
		"http://127.0.0.1:28929":          "127.0.0.1",
		"https://example.com":             "example.com",
		"https://example.com/gitlab":      "example.com",
		"http://[::1]:8080":               "[::1]",
		"http://user@git.example.com:443": "git.example.com",
		"localhost:80":                    "localhost",
	} {
		if got := sshHost(base); got != want {
			t.Errorf("sshHost(%q) = %q, want %q", base, got, want)
		}
	}
}
