package credential_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/credential"
)

var fields = credential.NewFields("password", "token", "pass", "access_token")

func TestMaskJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"password":"hunter2","login":"admin"}`, `{"password":"[REDACTED]","login":"admin"}`},
		{`{"login":"admin"}`, `{"login":"admin"}`},
		// Any depth, inside arrays, any case, spaces around the colon.
		{`{"params":{"arguments":{"url":"http://x","token":"s3cret"}}}`, `{"params":{"arguments":{"url":"http://x","token":"[REDACTED]"}}}`},
		{`[{"Password" : "a"},{"PASS":"b"}]`, `[{"Password" : "[REDACTED]"},{"PASS":"[REDACTED]"}]`},
		// Escapes in a name, as encoding/json decodes them; escapes in a value.
		{`{"pass\u0077ord":"x"}`, `{"pass\u0077ord":"[REDACTED]"}`},
		{`{"paſſword":"x","\u212aey":"y"}`, `{"paſſword":"[REDACTED]","\u212aey":"y"}`},
		{`{"token":"a\"b\\","next":"c"}`, `{"token":"[REDACTED]","next":"c"}`},
		// A value that is not a string, a nested value, nothing to hide.
		{`{"pass":12345,"token":{"a":["b"]},"x":1}`, `{"pass":"[REDACTED]","token":"[REDACTED]","x":1}`},
		{`{"password":null,"token":""}`, `{"password":null,"token":""}`},
		// A value that names a field is not a name.
		{`{"title":"password","body":"token"}`, `{"title":"password","body":"token"}`},
		{`{"title":"x\"password\":\"y"}`, `{"title":"x\"password\":\"y"}`},
		// Cut short (the log keeps the start of a body): masked to the end.
		{`{"login":"admin","password":"hunt`, `{"login":"admin","password":"[REDACTED]"`},
		{`{"token":{"a":"sec`, `{"token":"[REDACTED]"`},
		{`{"pass":12`, `{"pass":"[REDACTED]"`},
		{`{"password":`, `{"password":`},
		{`{"passw`, `{"passw`},
		// A longer name, or one that only starts like a field's.
		{`{"passwords":"x","my_token":"y"}`, `{"passwords":"x","my_token":"y"}`},
	}
	for _, tt := range tests {
		if got := string(fields.MaskJSON([]byte(tt.in))); got != tt.want {
			t.Errorf("MaskJSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
	in := []byte(`{"login":"admin"}`)
	if got := fields.MaskJSON(in); &got[0] != &in[0] {
		t.Error("a body with nothing to mask was copied")
	}
}

// An answer is masked as a request's body is, whatever the case of its
// names; one that names no field is returned as it is.
func TestMaskAnswer(t *testing.T) {
	t.Parallel()
	answers := credential.NewFields("access_token", "refresh_token", "token")
	for _, tt := range []struct{ in, want string }{
		{`{"access_token":"eyJ","token_type":"bearer"}`, `{"access_token":"[REDACTED]","token_type":"bearer"}`},
		{`{"REFRESH_TOKEN":"r","Token":"t"}`, `{"REFRESH_TOKEN":"[REDACTED]","Token":"[REDACTED]"}`},
		{`[{"id":1,"fk_soc":2,"title":"a token of thanks"}]`, `[{"id":1,"fk_soc":2,"title":"a token of thanks"}]`},
		{`{"id":1}`, `{"id":1}`},
	} {
		if got := string(answers.MaskAnswer([]byte(tt.in), "application/json")); got != tt.want {
			t.Errorf("MaskAnswer(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestMaskBodyForms(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, contentType, want string }{
		{"username=admin&password=hunter2", "application/x-www-form-urlencoded", "username=admin&password=[REDACTED]"},
		{"password=a;b&x=1", "application/x-www-form-urlencoded", "password=[REDACTED]&x=1"},
		{"x=1;token=abc&y=2", "", "x=1;token=[REDACTED]&y=2"},
		{"hook%5Btoken%5D=s&Pass=t&token[]=u&url=v", "application/x-www-form-urlencoded", "hook%5Btoken%5D=[REDACTED]&Pass=[REDACTED]&token[]=[REDACTED]&url=v"},
		{"pass%77ord=s&password=&pass", "application/x-www-form-urlencoded", "pass%77ord=[REDACTED]&password=&pass"},
		// A bracketed name is a member of its outer field too.
		{"password%5Bnew%5D=s&password[]=t&user[password]=u&users[name]=v", "application/x-www-form-urlencoded",
			"password%5Bnew%5D=[REDACTED]&password[]=[REDACTED]&user[password]=[REDACTED]&users[name]=v"},
		{"title=password%3Dx", "application/x-www-form-urlencoded", "title=password%3Dx"},
		{"password=hun", "text/plain", "password=[REDACTED]"},
		// JSON is read as JSON whatever the type says.
		{` {"password":"x"}`, "text/plain", ` {"password":"[REDACTED]"}`},
	}
	for _, tt := range tests {
		if got := string(fields.MaskBody([]byte(tt.in), tt.contentType)); got != tt.want {
			t.Errorf("MaskBody(%q, %q)\n got %q\nwant %q", tt.in, tt.contentType, got, tt.want)
		}
	}
}

func TestMaskMultipart(t *testing.T) {
	t.Parallel()
	body := "--XyZ\r\nContent-Disposition: form-data; name=\"url\"\r\n\r\nhttp://hooks.example/\r\n" +
		"--XyZ\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\ns3cret\r\nline two\r\n" +
		"--XyZ\r\ncontent-disposition: form-data; name=\"Password\"\r\nContent-Type: text/plain\r\n\r\nhunter2\r\n--XyZ--\r\n"
	want := "--XyZ\r\nContent-Disposition: form-data; name=\"url\"\r\n\r\nhttp://hooks.example/\r\n" +
		"--XyZ\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\n[REDACTED]\r\n" +
		"--XyZ\r\ncontent-disposition: form-data; name=\"Password\"\r\nContent-Type: text/plain\r\n\r\n[REDACTED]\r\n--XyZ--\r\n"
	ct := "multipart/form-data; boundary=XyZ"
	if got := string(fields.MaskBody([]byte(body), ct)); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Cut inside the secret part: masked to the end.
	cut := body[:strings.Index(body, "s3cr")+3]
	if got := string(fields.MaskBody([]byte(cut), ct)); strings.Contains(got, "s3c") || !strings.HasSuffix(got, "[REDACTED]") {
		t.Errorf("cut body: %q", got)
	}
}

// A URL's password is masked wherever it is, and an e-mail address is no
// URL.
func TestMaskUserinfo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{`{"url":"http://bob:s3cret@127.0.0.1:9/hook","email":"bob@example.com"}`, `{"url":"http://%5BREDACTED%5D@127.0.0.1:9/hook","email":"bob@example.com"}`},
		{"url=https://s3cret@hooks.example/&x=mail@example.com", "url=https://%5BREDACTED%5D@hooks.example/&x=mail@example.com"},
		{`see https://a:b@c/ and ftp://d@e`, `see https://%5BREDACTED%5D@c/ and ftp://%5BREDACTED%5D@e`},
		{`{"url":"http://hooks.example/a@b"}`, `{"url":"http://hooks.example/a@b"}`}, // an @ in a path
		{"http://@host/", "http://@host/"},
	} {
		if got := string(credential.MaskUserinfo([]byte(tt.in))); got != tt.want {
			t.Errorf("MaskUserinfo(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
		for _, f := range []*credential.Fields{nil, fields} {
			if got := string(f.MaskAnswer([]byte(tt.in), "")); got != tt.want {
				t.Errorf("MaskAnswer(%s) = %s", tt.in, got)
			}
		}
	}
}

func TestMaskQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f        *credential.Fields
		in, want string
	}{
		{nil, "page=2&private_token=glpat-x&PRIVATE_TOKEN=y&DOLAPIKEY=k&api_key=z", "page=2&private_token=[REDACTED]&PRIVATE_TOKEN=[REDACTED]&DOLAPIKEY=[REDACTED]&api_key=[REDACTED]"},
		{nil, "page=2&per_page=20", "page=2&per_page=20"},
		{nil, "pass=x", "pass=x"}, // not a credential parameter, and no service's field here
		{fields, "pass=x&login=admin", "pass=[REDACTED]&login=admin"},
	}
	for _, tt := range tests {
		got := tt.f.MaskQuery(tt.in)
		if got != tt.want {
			t.Errorf("MaskQuery(%q) = %q, want %q", tt.in, got, tt.want)
		}
		q, err := url.ParseQuery(got)
		if err != nil {
			t.Errorf("%q does not parse: %v", got, err)
		}
		for k, vs := range q {
			if credential.IsQueryParam(k) && vs[0] != credential.Redacted {
				t.Errorf("%q: %s=%q", got, k, vs[0])
			}
		}
	}
}

// A body whose secrets are masked allocates once; one with none, not at
// all.
func TestMaskAllocations(t *testing.T) {
	clean := []byte(`{"title":"Order 7 failed","labels":"orders,bug","description":"a longer text"}`)
	if n := testing.AllocsPerRun(100, func() { fields.MaskBody(clean, "application/json") }); n != 0 {
		t.Errorf("a JSON body with no secret: %v allocations", n)
	}
	form := []byte("username=admin&title=x&labels=a")
	if n := testing.AllocsPerRun(100, func() { fields.MaskBody(form, "application/x-www-form-urlencoded") }); n != 0 {
		t.Errorf("a form with no secret: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { fields.MaskAnswer(clean, "application/json") }); n != 0 {
		t.Errorf("an answer with no secret: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { fields.MaskQuery("page=2&per_page=100&search=x") }); n != 0 {
		t.Errorf("a query with no secret: %v allocations", n)
	}
}

// FuzzMaskJSON: masking never panics and never changes the body given;
// MaskAnswer masks what MaskBody does in a body of plain ASCII names; and a
// valid JSON body stays valid, every field at any depth holding
// "[REDACTED]", null or "" afterwards.
func FuzzMaskJSON(f *testing.F) {
	for _, s := range []string{`{"password":"x"}`, `[{"a":{"token":[1,{"pass":"y"}]}}]`, `{"pass\u0077ord":"x"}`, `{"token":"a\"b"}`, `{"a":"b","c":`, "password=x&token=y", "--b\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nx"} {
		f.Add([]byte(s), "application/json")
	}
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nx\r\n--b--"), "multipart/form-data; boundary=b")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		in := bytes.Clone(body)
		out := fields.MaskBody(body, contentType)
		if !bytes.Equal(body, in) {
			t.Fatal("the body given was changed")
		}
		_ = fields.MaskQuery(string(body))
		// An answer is masked as a request's body is when its names are
		// plain ASCII, as the fakes write them.
		if plain := !bytes.ContainsAny(body, `\%+`) && isASCII(body); plain {
			if answer := fields.MaskAnswer(body, contentType); !bytes.Equal(answer, out) {
				t.Fatalf("%q: MaskAnswer %q, MaskBody %q", body, answer, out)
			}
		}
		var v any
		if json.Unmarshal(body, &v) != nil {
			return
		}
		var masked any
		if err := json.Unmarshal(out, &masked); err != nil {
			t.Fatalf("valid JSON %q masked into invalid %q: %v", body, out, err)
		}
		if err := onlyMasked(masked); err != nil {
			t.Fatalf("%q masked into %q: %v", body, out, err)
		}
	})
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// onlyMasked checks that every field of v named as a secret holds
// "[REDACTED]", null or "".
func onlyMasked(v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if fields.Has(k) && e != nil && e != "" && e != credential.Redacted {
				return fmt.Errorf("%s is %v", k, e)
			}
			if err := onlyMasked(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := onlyMasked(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// BenchmarkMaskJSON is the cost of masking 64 KiB of JSON records with no
// secret in them (the start of a list answer the request log keeps): as a
// request's body, read whole, and as an answer, searched for token (what
// the ERP and sourcehost answer secrets in).
func BenchmarkMaskJSON(b *testing.B) {
	var page []map[string]any
	for i := range 400 {
		page = append(page, map[string]any{"id": i, "ref": fmt.Sprintf("FA2601-%04d", i), "socid": "1", "total_ttc": "59.97000000",
			"lines":       []map[string]any{{"fk_product": "3", "qty": "3", "subprice": "19.99000000", "desc": "Widget"}},
			"note_public": "", "date": 1767225600, "status": "1", "array_options": map[string]any{}})
	}
	body, _ := json.Marshal(page)
	body = body[:64<<10]
	b.Run("request", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			fields.MaskBody(body, "application/json")
		}
	})
	answers := credential.NewFields("token") // what the ERP and sourcehost answer secrets in
	b.Run("answer", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			answers.MaskAnswer(body, "application/json")
		}
	})
}
