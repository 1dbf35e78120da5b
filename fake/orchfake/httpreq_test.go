package orchfake_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/apitwin/apitwin/internal/orchwire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// buildHTTP turns a request message into the HTTP request its binding
// names: path variables filled from the message, the rest as the JSON body
// (POST) or the query string (GET).
func buildHTTP(ctx context.Context, base string, rule orchwire.Rule, req proto.Message) (*http.Request, error) {
	msg := proto.Clone(req)
	path := rule.Path
	for _, f := range rule.PathFields() {
		v := takeField(msg.ProtoReflect(), strings.Split(f, "."))
		if v == "" && strings.HasSuffix(f, "run_id") {
			v = "-"
		}
		path = strings.Replace(path, "{"+f+"}", url.PathEscape(v), 1)
	}
	if rule.Verb == "POST" {
		var body []byte
		if rule.Body == "*" {
			b, err := orchwire.MarshalJSON.Marshal(msg)
			if err != nil {
				return nil, err
			}
			body = b
		}
		r, err := http.NewRequestWithContext(ctx, "POST", base+path, bytes.NewReader(body))
		if err == nil {
			r.Header.Set("Content-Type", "application/json")
		}
		return r, err
	}
	q := url.Values{}
	addQuery(q, "", msg.ProtoReflect())
	u := base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return http.NewRequestWithContext(ctx, rule.Verb, u, nil)
}

// takeField reads and clears a (nested) string or integer field.
func takeField(m protoreflect.Message, parts []string) string {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(parts[0]))
	if fd == nil {
		return ""
	}
	if len(parts) > 1 {
		if !m.Has(fd) {
			return ""
		}
		return takeField(m.Mutable(fd).Message(), parts[1:])
	}
	v := m.Get(fd)
	m.Clear(fd)
	return fmt.Sprint(v.Interface())
}

func addQuery(q url.Values, prefix string, m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := prefix + string(fd.Name())
		switch {
		case fd.Kind() == protoreflect.MessageKind:
			addQuery(q, name+".", v.Message())
		case fd.Kind() == protoreflect.BytesKind:
			q.Set(name, urlSafe(v.Bytes()))
		case fd.Kind() == protoreflect.EnumKind:
			q.Set(name, string(fd.Enum().Values().ByNumber(v.Enum()).Name()))
		default:
			q.Set(name, fmt.Sprint(v.Interface()))
		}
		return true
	})
}
