package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-querystring/query"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/paging"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/retry"
)

// apiPrefix is the versioned path every endpoint lives under.
const apiPrefix = "/api/v4"

// Client talks to one source-hosting server. It is safe for concurrent use.
type Client struct {
	rest *rest.Client
	// hasToken is all the client keeps of its token, for String. The
	// token itself is rest's (its authorizer and secrets), behind a
	// pointer: a Client printed by value, whose fields fmt prints
	// without String, cannot show it.
	hasToken bool
	// sudo is the user requests act as (WithSudo, Client.Sudo), or "".
	sudo string
}

// The per-call types every apitwin client shares, under the same names in
// each (erp, cloudauth, orch, sourcehost, mcp): package apicall's, and the
// retry policy of package retry.
type (
	// RateLimit is what an answer said about the caller's rate limit.
	RateLimit = apicall.RateLimit
	// RateLimitError is the error of a call the server refused for its rate
	// once the client stopped retrying (the retries were spent, or waiting
	// again would pass the context's deadline). errors.Is(err, ErrRateLimited)
	// matches it, and errors.As gives both it and the *Error of the last
	// answer.
	RateLimitError = apicall.RateLimitError
	// RetryPolicy says when and how long the client waits before sending a
	// call again; the zero value means 3 retries with waits from 1 s
	// (doubling) up to 60 s. See the package documentation for which requests
	// are retried.
	RetryPolicy = retry.Policy
)

// Option configures a Client.
type Option func(*settings) error

type settings struct {
	rest  rest.Config
	token string
	// auth puts the token in a request's headers: PRIVATE-TOKEN
	// (WithToken), JOB-TOKEN (WithJobToken) or a bearer (WithOAuthToken).
	auth func(token string) func(http.Header)
	sudo string
}

func restOption(o rest.Option) Option { return func(s *settings) error { return o(&s.rest) } }

// WithToken authenticates every request with a personal access token, sent
// in the PRIVATE-TOKEN header.
func WithToken(token string) Option {
	return func(s *settings) error {
		if err := checkToken(token); err != nil {
			return err
		}
		s.token, s.auth = token, tokenAuth
		return nil
	}
}

// checkToken refuses a token no header can carry.
func checkToken(token string) error {
	if strings.TrimSpace(token) == "" {
		return errors.New("empty token")
	}
	if strings.ContainsAny(token, "\r\n") {
		return errors.New("token contains a line break")
	}
	return nil
}

// tokenAuth puts token in a request's PRIVATE-TOKEN header.
func tokenAuth(token string) func(http.Header) {
	return func(h http.Header) { h["Private-Token"] = []string{token} }
}

// WithRetry sets the retry policy.
func WithRetry(p RetryPolicy) Option { return restOption(rest.WithRetry(p)) }

// WithoutRetries sends every request once: a 429 or 5xx goes straight to
// the caller.
func WithoutRetries() Option { return restOption(rest.WithoutRetries()) }

// WithHTTPClient sends requests through hc instead of a pooled default client.
func WithHTTPClient(hc *http.Client) Option { return restOption(rest.WithHTTPClient(hc)) }

// WithLogger logs requests (debug), retries (info) and failures (warn).
// Tokens and headers are never logged.
func WithLogger(l *slog.Logger) Option { return restOption(rest.WithLogger(l)) }

// WithHook makes h see each call start and end: the place for a span or a
// metric per call, with the service, the operation, the status and the
// retry count (see package apicall).
func WithHook(h apicall.Hook) Option { return restOption(rest.WithHook(h)) }

// WithTransport wraps the client's HTTP transport with t, which then sees
// every attempt on the wire (see package apicall).
func WithTransport(t apicall.Transport) Option { return restOption(rest.WithTransport(t)) }

// WithClock makes the client wait on clk, for example a fake's clock so that
// retry waits in tests take no real time.
func WithClock(clk clock.Clock) Option { return restOption(rest.WithClock(clk)) }

// WithUserAgent appends a product token ("myapp/1.2") to the User-Agent.
func WithUserAgent(product string) Option { return restOption(rest.WithUserAgent(product)) }

// WithCAFile trusts the certificate authorities of a PEM file besides the
// system's.
func WithCAFile(path string) Option { return restOption(rest.WithCAFile(path)) }

// WithResponseHeaderTimeout bounds how long a request waits for the
// answer's headers once it is sent (0, the default: no bound), on the
// client's own transport, which the TLS options also configure. A client
// given WithHTTPClient keeps its own timeouts.
func WithResponseHeaderTimeout(d time.Duration) Option {
	return restOption(rest.WithResponseHeaderTimeout(d))
}

// WithInsecureSkipVerify turns TLS certificate verification off.
func WithInsecureSkipVerify() Option { return restOption(rest.WithInsecureSkipVerify()) }

// New returns a client for the server at baseURL: the server's root
// ("https://git.example.com") or its API root (".../api/v4").
func New(baseURL string, opts ...Option) (*Client, error) {
	s := settings{}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&s); err != nil {
			return nil, fmt.Errorf("sourcehost: %w", err)
		}
	}
	base := strings.TrimRight(baseURL, "/")
	if !strings.HasSuffix(base, apiPrefix) {
		base += apiPrefix
	}
	c := &Client{hasToken: s.token != "", sudo: s.sudo}
	cfg := s.rest
	cfg.Service = "sourcehost"
	cfg.BaseURL = base
	cfg.APIPath = apiPrefix // OAuthTokenInfo's endpoint is at the server's root
	cfg.DecodeError = decodeError
	cfg.ScrubError = scrubError
	if s.token != "" {
		cfg.Secrets = append(cfg.Secrets, s.token)
		cfg.Authorize = s.auth(s.token)
	}
	rc, err := rest.New(cfg)
	if err != nil {
		return nil, err
	}
	c.rest = rc
	return c, nil
}

// BaseURL returns the API root requests go to (ending in /api/v4),
// without the user information it may have been given (sent as basic
// authentication, never shown).
func (c *Client) BaseURL() string { return c.rest.BaseURL() }

// RateLimit returns the rate-limit values of the most recent response that
// carried any.
func (c *Client) RateLimit() RateLimit { return c.rest.RateLimit() }

// WithToken returns a copy of c that authenticates with token instead of
// c's token (or none), with c's settings and HTTP client otherwise: a
// client per user, as a service acting for many users needs, without
// building each from options. The copy keeps its own rate limit; c is
// unchanged. An empty token, or one with a line break, is an error.
func (c *Client) WithToken(token string) (*Client, error) {
	if err := checkToken(token); err != nil {
		return nil, fmt.Errorf("sourcehost: %w", err)
	}
	return &Client{rest: c.rest.WithAuth(tokenAuth(token), token), hasToken: true, sudo: c.sudo}, nil
}

// String describes the client without its token.
func (c *Client) String() string {
	auth := "none"
	if c.hasToken {
		auth = rest.Redacted
	}
	return fmt.Sprintf("sourcehost.Client{BaseURL: %s, Token: %s}", c.rest.BaseURL(), auth)
}

// GoString is String, so that %#v does not print the token either.
func (c *Client) GoString() string { return c.String() }

// ProjectRef names a project: by numeric id ([ProjectID]) or by its full
// path ([ProjectPath]).
type ProjectRef interface {
	projectRef() (string, error)
}

// ProjectID names a project by its numeric id.
type ProjectID int64

// ProjectPath names a project by its full path, "group/subgroup/project".
type ProjectPath string

func (id ProjectID) projectRef() (string, error) {
	if id <= 0 {
		return "", fmt.Errorf("invalid project id %d", id)
	}
	return strconv.FormatInt(int64(id), 10), nil
}

func (p ProjectPath) projectRef() (string, error) {
	s := strings.Trim(string(p), "/")
	if s == "" {
		return "", errors.New("empty project path")
	}
	return url.PathEscape(s), nil
}

// Ptr returns a pointer to v, for the optional fields of options and
// requests: &ListProjectsOptions{Owned: sourcehost.Ptr(true)}.
func Ptr[T any](v T) *T { return &v }

// projectPath builds "/projects/<ref><suffix>".
func projectPath(pid ProjectRef, suffix string) (string, error) {
	if pid == nil {
		return "", errors.New("sourcehost: nil project")
	}
	ref, err := pid.projectRef()
	if err != nil {
		return "", fmt.Errorf("sourcehost: %w", err)
	}
	return "/projects/" + ref + suffix, nil
}

// call sends one request with a JSON body (or none) and decodes the answer.
func (c *Client) call(ctx context.Context, method, path string, q any, body any, out any) (rest.Response, error) {
	req := &rest.Request{Method: method, Path: path, JSON: body}
	if q != nil {
		v, err := query.Values(q)
		if err != nil {
			return rest.Response{}, fmt.Errorf("sourcehost: encoding query: %w", err)
		}
		req.Query = v
	}
	return c.send(ctx, req, out)
}

// Do sends a request the client does not wrap (yet): method, a path under
// the API root ("/version", "/projects/7/releases", escaped already), a
// query, and a JSON body (nil for none). The answer is decoded into out: a
// pointer for JSON, an io.Writer for the raw bytes, or nil to drop it. It
// gets what every call gets: the token, retries, rate limits, errors as
// *Error, and apicall.Capture for its status and headers.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("sourcehost: Do: path %q must start with / (it is under the API root)", path)
	}
	_, err := c.send(ctx, &rest.Request{Method: method, Path: path, Query: query, JSON: body}, out)
	return err
}

// do sends one request and decodes the answer into a new T.
func do[T any](ctx context.Context, c *Client, method, path string, q, body any) (*T, error) {
	out := new(T)
	if _, err := c.call(ctx, method, path, q, body, out); err != nil {
		return nil, err
	}
	return out, nil
}

// pager is an options type that embeds ListOptions.
type pager interface{ listOptions() *ListOptions }

func (o *ListOptions) listOptions() *ListOptions { return o }

// list fetches one page of the collection at path.
func list[T any](ctx context.Context, c *Client, path string, opts any) (*Page[T], error) {
	var items []*T
	resp, err := c.call(ctx, http.MethodGet, path, opts, nil, &items)
	if err != nil {
		return nil, err
	}
	return &Page[T]{Items: items, PageInfo: pageInfo(resp)}, nil
}

// all iterates the collection at path a page at a time, on a copy of opts
// so the caller's options stay as they were.
func all[T, O any, PO interface {
	*O
	pager
}](ctx context.Context, c *Client, path string, opts PO) iter.Seq2[*T, error] {
	var o O
	if opts != nil {
		o = *opts
	}
	lo := PO(&o).listOptions()
	keyset := lo.Pagination == Keyset
	// The cursor is a page number, or under keyset pagination the link to
	// the next page ("" for the first).
	type cursor struct {
		page int
		link string
	}
	return paging.Seq(cursor{page: max(lo.Page, 1)}, func(cur cursor) ([]*T, cursor, bool, error) {
		var p *Page[T]
		var err error
		if cur.link != "" {
			p, err = FollowNext(ctx, c, &Page[T]{PageInfo: PageInfo{NextLink: cur.link}})
		} else {
			lo.Page = cur.page
			if keyset {
				lo.Page = 0
			}
			p, err = list[T](ctx, c, path, &o)
		}
		if err != nil {
			return nil, cursor{}, false, err
		}
		if keyset {
			// A link back to the page just read would loop.
			return p.Items, cursor{link: p.NextLink}, p.NextLink != "" && p.NextLink != cur.link && len(p.Items) > 0, nil
		}
		return p.Items, cursor{page: p.NextPage}, p.NextPage > cur.page && len(p.Items) > 0, nil
	})
}

// listIn fetches one page of a project's sub-collection (suffix "/issues").
func listIn[T any](ctx context.Context, c *Client, pid ProjectRef, suffix string, opts any) (*Page[T], error) {
	path, err := projectPath(pid, suffix)
	if err != nil {
		return nil, err
	}
	return list[T](ctx, c, path, opts)
}

// allIn iterates a project's sub-collection.
func allIn[T, O any, PO interface {
	*O
	pager
}](ctx context.Context, c *Client, pid ProjectRef, suffix string, opts PO) iter.Seq2[*T, error] {
	path, err := projectPath(pid, suffix)
	if err != nil {
		return func(yield func(*T, error) bool) { yield(nil, err) }
	}
	return all[T](ctx, c, path, opts)
}
