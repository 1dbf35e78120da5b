// Package credential names what carries a credential in a request, for the
// code that shows or keeps requests: the fakes' request logs, the control
// API and console of apitwin-fake, a client's answer printed with %v. One
// list of headers and one of query parameters, so that a secret hidden in
// one place is hidden in all; each fake adds the body fields of its own
// service that hold secrets (Fields). A test holds every client's
// credential headers and parameters to these lists.
package credential

import (
	"net/http"
	"net/url"
	"strings"
)

// Redacted is the text that stands where a secret was, in the clients'
// errors, logs and printed values and in the fakes' request logs.
const Redacted = "[REDACTED]"

// headers are the credential headers, in canonical form: the standard ones
// and those of the services the module speaks to: the ERP's API key
// (ERPAPIKEY, and DOLAPIKEY, which the ERP also reads), source-hosting
// tokens (PRIVATE-TOKEN, JOB-TOKEN, a webhook's secret token as the fake
// sends it and as GitLab names it), the gateway's request signature.
var headers = map[string]bool{
	"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "Set-Cookie": true,
	"Erpapikey": true, "Dolapikey": true, "X-Api-Key": true,
	"Private-Token": true, "Job-Token": true, "X-Sourcehost-Token": true, "X-Gitlab-Token": true,
	"X-Mcp-Signature": true,
}

// queryParams are the query parameters that carry credentials, in lower
// case: source-hosting tokens (private_token, job_token, OAuth's
// access_token), the ERP's key (ERPAPIKEY, DOLAPIKEY, api_key) and login
// password, and the generic names other APIs use (token, key).
var queryParams = map[string]bool{
	"private_token": true, "job_token": true, "access_token": true,
	"erpapikey": true, "dolapikey": true, "api_key": true, "password": true,
	"token": true, "key": true,
}

// IsHeader reports whether the header called name (in any case) carries a
// credential.
func IsHeader(name string) bool { return headers[http.CanonicalHeaderKey(name)] }

// IsQueryParam reports whether the query parameter called name (in any
// case) carries a credential.
func IsQueryParam(name string) bool { return queryParams[strings.ToLower(name)] }

// RedactHeader returns h with each credential header's values redacted
// (RedactValue; marker stands for Redacted); h itself is not changed. It
// returns nil for an empty h.
func RedactHeader(h http.Header, marker string) http.Header {
	if len(h) == 0 {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		if !IsHeader(k) {
			out[k] = vs
			continue
		}
		rs := make([]string, len(vs))
		for i, v := range vs {
			rs[i] = RedactValue(k, v)
			if marker != Redacted {
				rs[i] = strings.ReplaceAll(rs[i], Redacted, marker)
			}
		}
		out[k] = rs
	}
	return out
}

// schemes are the Authorization schemes a redacted value keeps, each with
// the redacted value that keeps it (a constant: redacting costs nothing).
var schemes = map[string]string{
	"bearer": "Bearer " + Redacted, "basic": "Basic " + Redacted, "token": "Token " + Redacted,
	"digest": "Digest " + Redacted, "negotiate": "Negotiate " + Redacted,
}

// RedactValue is the value of the credential header name, redacted: what
// says how the credential was sent stays, the credential goes. An
// Authorization keeps its scheme ("Bearer [REDACTED]"); a Cookie keeps its
// cookies' names ("session=[REDACTED]; lang=[REDACTED]"), a Set-Cookie its
// cookie's name (a name is what comes before an "="); any other value is
// Redacted.
func RedactValue(name, value string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Proxy-Authorization":
		scheme, _, _ := strings.Cut(strings.TrimSpace(value), " ")
		if r, ok := schemes[strings.ToLower(scheme)]; ok {
			return r
		}
	case "Cookie":
		var b strings.Builder
		for i, c := range strings.Split(value, ";") {
			if i > 0 {
				b.WriteString("; ")
			}
			if n, _, ok := strings.Cut(strings.TrimSpace(c), "="); ok {
				b.WriteString(n + "=")
			}
			b.WriteString(Redacted)
		}
		return b.String()
	case "Set-Cookie":
		if n, _, ok := strings.Cut(value, "="); ok {
			return strings.TrimSpace(n) + "=" + Redacted
		}
	}
	return Redacted
}

// RedactURL is u as text, its userinfo (user and password) replaced by
// Redacted and the values of its credential query parameters too, for an
// error or a page that shows a URL someone gave (a base URL, a webhook's).
func RedactURL(u *url.URL) string {
	if u.User == nil && u.RawQuery == "" {
		return u.String()
	}
	cp := *u
	if cp.User != nil {
		cp.User = url.User(Redacted)
	}
	cp.RawQuery = (*Fields)(nil).MaskQuery(cp.RawQuery)
	return cp.String()
}

// RedactQuery returns q with each credential parameter's values replaced
// by Redacted: q itself when it holds none, else a copy.
func RedactQuery(q url.Values) url.Values {
	var out url.Values
	for k := range q {
		if !IsQueryParam(k) {
			continue
		}
		if out == nil {
			out = make(url.Values, len(q))
			for k2, v := range q {
				out[k2] = v
			}
		}
		out[k] = []string{Redacted}
	}
	if out == nil {
		return q
	}
	return out
}
