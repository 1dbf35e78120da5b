// Package credential names the HTTP headers that carry credentials, for
// the code that shows headers to people: the fakes' request logs, a
// client's answer printed with %v. One list, so that a header hidden in one
// place is hidden in all.
package credential

import "net/http"

// Redacted is the text that stands where a secret was, in the clients'
// errors, logs and printed values.
const Redacted = "[REDACTED]"

// headers are the credential headers, in canonical form: the standard ones
// and those of the services the module speaks to (source-hosting tokens,
// the ERP's API key, the gateway's request signature).
var headers = map[string]bool{
	"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "Set-Cookie": true,
	"Private-Token": true, "Job-Token": true, "Dolapikey": true, "X-Api-Key": true,
	"X-Gitlab-Token": true, "X-Mcp-Signature": true,
}

// IsHeader reports whether the header called name (in any case) carries a
// credential.
func IsHeader(name string) bool { return headers[http.CanonicalHeaderKey(name)] }

// RedactHeader returns h with each credential header's values replaced by
// the one value marker; h itself is not changed. It returns nil for an
// empty h.
func RedactHeader(h http.Header, marker string) http.Header {
	if len(h) == 0 {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		if IsHeader(k) {
			out[k] = []string{marker}
			continue
		}
		out[k] = vs
	}
	return out
}
