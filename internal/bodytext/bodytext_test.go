package bodytext_test

import (
	"bytes"
	"testing"

	"github.com/apitwin/apitwin/internal/bodytext"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body     []byte
		encoding string
	}{{nil, ""}, {[]byte(`{"a":"é"}`), ""}, {[]byte{0xff, 'x'}, bodytext.Base64}, {[]byte("é")[:1], bodytext.Base64}} {
		text, enc := bodytext.Encode(c.body)
		if enc != c.encoding {
			t.Errorf("%q: encoding %q", c.body, enc)
		}
		back, err := bodytext.Decode(text, enc)
		if err != nil || !bytes.Equal(back, c.body) {
			t.Errorf("%q: back %q, %v", c.body, back, err)
		}
	}
	if _, err := bodytext.Decode("x", "gzip"); err == nil {
		t.Error("an unknown encoding decoded")
	}
}
