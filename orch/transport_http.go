package orch

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/apitwin/apitwin/internal/callrun"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// httpTransport sends calls as the HTTP/JSON operations of the contract's
// google.api.http bindings, each attempt through the shared REST core
// (rest.Client.Send): the Client runs the call, its retries included,
// through its pipeline for both transports alike.
type httpTransport struct {
	rest *rest.Client
	s    *settings
}

func newHTTPTransport(baseURL string, s *settings) (*httpTransport, error) {
	base := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	for _, v := range []string{orchwire.V1, orchwire.V1Beta1} {
		base = strings.TrimSuffix(base, orchwire.PathPrefix+v)
	}
	cfg := s.rest
	cfg.Service = "orch"
	cfg.BaseURL = base
	cfg.Logger, cfg.Hook = nil, nil // the Client's pipeline has them, for both transports
	cfg.DecodeError = decodeHTTPError
	cfg.ScrubError = scrubError
	if s.token != "" {
		token := s.token
		cfg.Secrets = append(cfg.Secrets, token)
		cfg.Authorize = func(h http.Header) { h["Authorization"] = []string{"Bearer " + token} }
	}
	if s.tlsConfig != nil {
		tr := cleanhttp.DefaultPooledTransport()
		tr.TLSClientConfig = s.tlsConfig
		cfg.HTTPClient = &http.Client{Transport: tr}
	}
	rc, err := rest.New(cfg)
	if err != nil {
		return nil, err
	}
	return &httpTransport{rest: rc, s: s}, nil
}

func (t *httpTransport) close() error { return nil }

func (t *httpTransport) invoke(ctx context.Context, m *method, req, resp proto.Message) (callInfo, error) {
	info := callInfo{sent: true}
	path, query, err := httpTarget(m.rule, req, t.s.apiVersion)
	if err != nil {
		info.sent = false
		return info, err
	}
	r := &rest.Request{
		Method: m.rule.Verb,
		Path:   path,
		Query:  query,
		Header: http.Header{http.CanonicalHeaderKey(orchwire.HeaderAPIVersion): {t.s.apiVersion}},
	}
	if deadline, ok := ctx.Deadline(); ok {
		// grpc-gateway turns Grpc-Timeout into the server call's deadline, so
		// a long poll ends (empty) before the caller stops waiting for it.
		if ms := time.Until(deadline).Milliseconds(); ms > 0 {
			r.Header.Set("Grpc-Timeout", strconv.FormatInt(ms, 10)+"m")
		}
	}
	if m.rule.Body == "*" {
		body, err := orchwire.MarshalJSON.Marshal(req)
		if err != nil {
			info.sent = false
			return info, &Error{Code: CodeInvalidArgument, Message: "encoding request: " + err.Error()}
		}
		r.RawJSON = body
	}
	var buf bytes.Buffer
	var call callrun.Call // the token is the core's own secret: nothing to learn here
	res, o := t.rest.Send(ctx, &call, r, &buf)
	info.rateLimit, info.retryAfter, info.header, info.status = res.RateLimit, res.RateLimit.RetryAfter, res.Header, res.StatusCode
	info.deprecated = res.Header.Get("Deprecation") != ""
	if err := o.Err; err != nil {
		var e *Error
		if errors.As(err, &e) {
			return info, e
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return info, contextError(m.name, ctxErr)
		}
		info.sent, info.permanent = !o.NotSent, o.Permanent
		return info, &Error{Code: CodeUnavailable, Message: err.Error(), cause: err}
	}
	if buf.Len() > 0 {
		if err := orchwire.LenientJSON.Unmarshal(buf.Bytes(), resp); err != nil {
			// the decoder quotes the value it could not read: Client.asError
			// cleans it, as every error of a call
			return info, &Error{Code: CodeInternal, Message: "decoding the answer: " + err.Error(), cause: err}
		}
	}
	return info, nil
}

// decodeHTTPError reads {"error":{"code","message","details"}}, and for an
// answer without that shape (a proxy's page) names the code from the status.
func decodeHTTPError(resp *http.Response, body []byte) error {
	if code, msg, details, ok := orchwire.ParseHTTPBody(body); ok {
		return &Error{Code: code, Message: msg, Details: details}
	}
	msg := rest.Excerpt(string(body))
	if msg == "" {
		msg = resp.Status
	}
	return &Error{Code: orchwire.FromHTTPStatus(resp.StatusCode), Message: msg}
}

// httpTarget builds the escaped path of a call from its rule, and the query
// of a call without a body: every set field not in the path, nested fields
// dotted, enums by name, bytes in base64.
func httpTarget(rule orchwire.Rule, req proto.Message, apiVersion string) (string, url.Values, error) {
	msg := req.ProtoReflect()
	path := rule.Path
	if apiVersion != orchwire.V1 {
		path = orchwire.PathPrefix + apiVersion + strings.TrimPrefix(path, orchwire.PathPrefix+orchwire.V1)
	}
	vars := rule.PathFields()
	inPath := make(map[string]bool, len(vars))
	for _, v := range vars {
		inPath[v] = true
		val, fd := fieldAt(msg, v)
		var seg string
		switch {
		case fd == nil:
			return "", nil, fmt.Errorf("orch: %s: no field %s", rule.FullMethod, v)
		case fd.Kind() == protoreflect.StringKind:
			seg = val.String()
			if seg == "" {
				if fd.Name() == "run_id" {
					seg = "-" // the latest run
				} else {
					return "", nil, &Error{Code: CodeInvalidArgument, Message: v + " is required",
						Details: []*orchpb.ErrorDetail{{Type: "FieldViolation", Field: v, Description: "required"}}}
				}
			}
		default:
			seg = scalarText(fd, val)
		}
		path = strings.Replace(path, "{"+v+"}", url.PathEscape(seg), 1)
	}
	if rule.Body == "*" {
		return path, nil, nil
	}
	q := url.Values{}
	addQuery(q, "", msg, inPath)
	return path, q, nil
}

// fieldAt walks a dotted field path ("execution.run_id").
func fieldAt(msg protoreflect.Message, path string) (protoreflect.Value, protoreflect.FieldDescriptor) {
	names := strings.Split(path, ".")
	for i, name := range names {
		fd := msg.Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			return protoreflect.Value{}, nil
		}
		if i == len(names)-1 {
			return msg.Get(fd), fd
		}
		if fd.Kind() != protoreflect.MessageKind || fd.IsList() || fd.IsMap() {
			return protoreflect.Value{}, nil
		}
		msg = msg.Get(fd).Message()
	}
	return protoreflect.Value{}, nil
}

func addQuery(q url.Values, prefix string, msg protoreflect.Message, skip map[string]bool) {
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := prefix + string(fd.Name())
		switch {
		case skip[name], fd.IsMap():
			// path fields are in the path; no GET of the contract has a map
		case fd.IsList():
			list := v.List()
			for i := 0; i < list.Len(); i++ {
				q.Add(name, scalarText(fd, list.Get(i)))
			}
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			if wellKnown(fd.Message().FullName()) {
				q.Add(name, scalarText(fd, v))
			} else {
				addQuery(q, name+".", v.Message(), skip)
			}
		default:
			q.Add(name, scalarText(fd, v))
		}
		return true
	})
}

func wellKnown(name protoreflect.FullName) bool {
	return strings.HasPrefix(string(name), "google.protobuf.")
}

// scalarText is a value as a path segment or query parameter holds it.
func scalarText(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	case protoreflect.BytesKind:
		return base64.StdEncoding.EncodeToString(v.Bytes())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		// well-known types (Duration, Timestamp, wrappers): their JSON text
		b, err := protojson.Marshal(v.Message().Interface())
		if err != nil {
			return ""
		}
		return strings.Trim(string(b), `"`)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return v.String()
}
