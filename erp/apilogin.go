package erp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/apitwin/apitwin/internal/rest"
)

// APIKeyRequest asks the ERP's login API for a user's API key.
type APIKeyRequest struct {
	Login    string `json:"login"`
	Password string `json:"password"`
	// Entity is the company (multi-company deployments); 0 is the first.
	Entity ID `json:"entity,omitempty"`
	// Reset asks for a new key: the one the user had stops working.
	Reset bool `json:"-"`
}

// String describes the request without its password.
func (r APIKeyRequest) String() string {
	return fmt.Sprintf("erp.APIKeyRequest{Login: %q, Entity: %d, Reset: %v, Password: %s}", r.Login, r.Entity, r.Reset, rest.Redacted)
}

// GoString is String.
func (r APIKeyRequest) GoString() string { return r.String() }

// LogValue is String, for slog.
func (r APIKeyRequest) LogValue() slog.Value { return slog.StringValue(r.String()) }

// APIKeyGrant is the login API's answer: the user's API key (made when the
// user had none, or Reset asked), the entity and the ERP's message. Its
// string forms do not show the key.
type APIKeyGrant struct {
	Key     string `json:"token"`
	Entity  ID     `json:"entity"`
	Message string `json:"message"`
}

// String describes the grant without the key.
func (g APIKeyGrant) String() string {
	return fmt.Sprintf("erp.APIKeyGrant{Entity: %d, Message: %q, Key: %s}", g.Entity, g.Message, rest.Redacted)
}

// GoString is String.
func (g APIKeyGrant) GoString() string { return g.String() }

// LogValue is String, for slog.
func (g APIKeyGrant) LogValue() slog.Value { return slog.StringValue(g.String()) }

// RequestAPIKey exchanges a login and password for the user's API key, as
// the ERP's login API does (a script's first call, before WithAPIKey). It
// needs no credentials of the client's: an anonymous client (New without
// WithAPIKey or WithLogin) can call it. The password travels in the body
// (the API also reads it from the URL, which this method never uses); the
// key is kept out of the client's errors and logs from then on. A refused
// login is 403 "Access denied" (ErrForbidden), as the ERP answers it;
// deployments that switched the login API off answer 403 too.
//
// ERP API: POST /login
func (c *Client) RequestAPIKey(ctx context.Context, req *APIKeyRequest) (*APIKeyGrant, error) {
	if req == nil || req.Login == "" {
		return nil, fmt.Errorf("erp: RequestAPIKey needs a login")
	}
	body := map[string]any{"login": req.Login, "password": req.Password}
	if req.Entity != 0 {
		body["entity"] = req.Entity.String()
	}
	if req.Reset {
		body["reset"] = 1
	}
	var out struct {
		Success json.RawMessage `json:"success"`
	}
	if _, err := c.call(ctx, &rest.Request{Method: http.MethodPost, Path: "/login", JSON: body, Secrets: []string{req.Password}}, &out); err != nil {
		return nil, err
	}
	var g APIKeyGrant
	if err := json.Unmarshal(out.Success, &g); err != nil || g.Key == "" {
		return nil, fmt.Errorf("erp: POST /login: the answer carries no key")
	}
	c.api.Secrets().Add(g.Key)
	return &g, nil
}

// Status is the ERP's status: its version, and whether it lets only
// logins in (MAIN_ONLY_LOGIN_ALLOWED: the login of the one user allowed;
// "0" or "" when everyone may log in).
type Status struct {
	Version      string `json:"-"`
	AccessLocked string `json:"-"`
}

// UnmarshalJSON reads {"success":{"code":200,"erp_version":…,
// "access_locked":…}}; the version's field is named after the ERP's
// brand in real deployments, which is read too.
func (s *Status) UnmarshalJSON(b []byte) error {
	var w struct {
		Success map[string]json.RawMessage `json:"success"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	for name, raw := range w.Success {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		text := fmt.Sprint(v)
		switch {
		case name == "access_locked":
			s.AccessLocked = text
		case len(name) > 8 && name[len(name)-8:] == "_version":
			s.Version = text
		}
	}
	if s.Version == "" {
		return fmt.Errorf("erp: the status carries no version")
	}
	return nil
}

// Status returns the ERP's status: its version. It needs an API key or a
// session, as the ERP's status API does.
//
// ERP API: GET /status
func (c *Client) Status(ctx context.Context) (*Status, error) {
	return do[Status](ctx, c, http.MethodGet, "/status", nil, nil)
}
