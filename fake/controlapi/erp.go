package controlapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The ERP operations: the switches a deployment differs by (the REST
// module on or off, numbers as JSON numbers or strings) and the users' API
// keys, so that a suite in any language can test those paths.

// ERPSettings is the ERP fake's switches, as GET and POST
// /api/erp/settings answer them.
type ERPSettings struct {
	// APIEnabled: the REST API module is on. Off, every API call is
	// answered as the ERP answers it then: 200 with a web page saying the
	// module must be enabled (erp.ErrAPINotEnabled).
	APIEnabled bool `json:"api_enabled"`
	// NativeNumbers: answers write numbers as JSON numbers ("id":12)
	// rather than strings ("id":"12").
	NativeNumbers bool `json:"native_numbers"`
}

// ERPSettingsChange is what POST /api/erp/settings changes: the switches
// given; nil leaves one as it is.
type ERPSettingsChange struct {
	APIEnabled    *bool `json:"api_enabled,omitempty"`
	NativeNumbers *bool `json:"native_numbers,omitempty"`
}

// ERPAPIKey is an API key POST /api/erp/api-keys made. Its string forms do
// not show the key.
type ERPAPIKey struct {
	Login  string `json:"login"`
	APIKey string `json:"api_key"`
}

// String describes the key without the key.
func (k ERPAPIKey) String() string {
	return fmt.Sprintf("ERPAPIKey{Login: %q, APIKey: [REDACTED]}", k.Login)
}

// GoString is String.
func (k ERPAPIKey) GoString() string { return k.String() }

func (s *Server) currentERPSettings() ERPSettings {
	return ERPSettings{APIEnabled: s.f.ERP.APIEnabled(), NativeNumbers: s.f.ERP.NativeNumbers()}
}

func (s *Server) erpSettings(http.ResponseWriter, *http.Request) (any, error) {
	return s.currentERPSettings(), nil
}

func (s *Server) setERPSettings(w http.ResponseWriter, r *http.Request) (any, error) {
	var in ERPSettingsChange
	if err := decodeJSON(w, r, &in); err != nil {
		return nil, err
	}
	s.applyERPSettings(in)
	return s.currentERPSettings(), nil
}

func (s *Server) applyERPSettings(in ERPSettingsChange) {
	if in.APIEnabled != nil {
		s.f.ERP.SetAPIEnabled(*in.APIEnabled)
	}
	if in.NativeNumbers != nil {
		s.f.ERP.SetNativeNumbers(*in.NativeNumbers)
	}
}

// issueERPAPIKey gives a user a new API key, replacing the one it had, as
// generating one on the user's card does.
func (s *Server) issueERPAPIKey(w http.ResponseWriter, r *http.Request) (any, error) {
	var in struct {
		Login string `json:"login"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Login) == "" {
		return nil, fmt.Errorf("login is required")
	}
	key, err := s.f.ERP.IssueAPIKey(in.Login)
	if err != nil {
		return nil, notFound("no ERP user %q", in.Login)
	}
	return ERPAPIKey{Login: in.Login, APIKey: key}, nil
}

func (s *Server) revokeERPAPIKey(w http.ResponseWriter, r *http.Request) (any, error) {
	var in struct {
		Login string `json:"login"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		return nil, err
	}
	if err := s.f.ERP.RevokeAPIKey(in.Login); err != nil {
		return nil, notFound("no API key to revoke: %s", strings.TrimPrefix(err.Error(), "erpfake: "))
	}
	return nil, nil
}

// ERPSettings returns the ERP fake's switches.
func (c *Client) ERPSettings(ctx context.Context) (ERPSettings, error) {
	var out ERPSettings
	err := c.call(ctx, http.MethodGet, "/api/erp/settings", nil, "", &out)
	return out, err
}

// SetERPSettings changes the switches ch gives and returns them all.
func (c *Client) SetERPSettings(ctx context.Context, ch ERPSettingsChange) (ERPSettings, error) {
	body, err := json.Marshal(ch)
	if err != nil {
		return ERPSettings{}, err
	}
	var out ERPSettings
	err = c.call(ctx, http.MethodPost, "/api/erp/settings", strings.NewReader(string(body)), "application/json", &out)
	return out, err
}

// IssueERPAPIKey gives an ERP user a new API key (the one it had stops
// working) and returns it.
func (c *Client) IssueERPAPIKey(ctx context.Context, login string) (ERPAPIKey, error) {
	body, err := json.Marshal(map[string]string{"login": login})
	if err != nil {
		return ERPAPIKey{}, err
	}
	var out ERPAPIKey
	err = c.call(ctx, http.MethodPost, "/api/erp/api-keys", strings.NewReader(string(body)), "application/json", &out)
	return out, err
}

// RevokeERPAPIKey takes an ERP user's API key away: calls with it are
// refused (401) from then on.
func (c *Client) RevokeERPAPIKey(ctx context.Context, login string) error {
	body, err := json.Marshal(map[string]string{"login": login})
	if err != nil {
		return err
	}
	return c.call(ctx, http.MethodPost, "/api/erp/api-keys/revoke", strings.NewReader(string(body)), "application/json", nil)
}

// consoleERPSettings is the console's switches on the erp page.
func (s *Server) consoleERPSettings(service string, r *http.Request) (string, error) {
	if service != "erp" {
		return "", fmt.Errorf("%s has no such switches", service)
	}
	var ch ERPSettingsChange
	for name, set := range map[string]**bool{"api_enabled": &ch.APIEnabled, "native_numbers": &ch.NativeNumbers} {
		if v := r.PostFormValue(name); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return "", fmt.Errorf("%s: %q is not true or false", name, v)
			}
			*set = &on
		}
	}
	s.applyERPSettings(ch)
	st := s.currentERPSettings()
	return fmt.Sprintf("erp: REST module on: %v; numbers as JSON numbers: %v", st.APIEnabled, st.NativeNumbers), nil
}
