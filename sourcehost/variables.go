package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/apitwin/apitwin/internal/rest"
)

// VariableType is how a CI/CD variable reaches a job: as an environment
// variable, or as a file whose path the variable holds.
type VariableType string

// Variable types.
const (
	EnvVar  VariableType = "env_var"
	FileVar VariableType = "file"
)

// Variable is a project's CI/CD variable. The server refuses to mask a
// value it could not find in a job's log: a masked value is at least 8
// characters of the Base64 alphabet and @ : . ~ - (any 8 or more but
// spaces when Raw), else 400 {"message":{"value":["is invalid"]}}.
//
// Its value is left out of its printed forms (String, GoString,
// LogValue), masked or not: CI/CD variables are where credentials live.
type Variable struct {
	Key          string       `json:"key"`
	Value        string       `json:"value"` // "" when Hidden
	VariableType VariableType `json:"variable_type"`
	Protected    bool         `json:"protected"` // only pipelines on protected branches and tags get it
	Masked       bool         `json:"masked"`    // hidden in jobs' logs
	Hidden       bool         `json:"hidden"`    // masked, and its value never answered again
	Raw          bool         `json:"raw"`       // not expanded ($OTHER stays as written)
	// EnvironmentScope is the environments the variable applies to: "*"
	// for all, or a name or wildcard ("review/*").
	EnvironmentScope string `json:"environment_scope"`
	Description      string `json:"description"`
}

// String names the variable without its value.
func (v Variable) String() string {
	return fmt.Sprintf("sourcehost.Variable{Key:%q, Value:%s, VariableType:%q, Protected:%t, Masked:%t, Hidden:%t, Raw:%t, EnvironmentScope:%q}",
		v.Key, redactedValue(v.Value), v.VariableType, v.Protected, v.Masked, v.Hidden, v.Raw, v.EnvironmentScope)
}

// GoString is String.
func (v Variable) GoString() string { return v.String() }

// LogValue is what slog shows: the variable without its value.
func (v Variable) LogValue() slog.Value {
	return slog.GroupValue(slog.String("key", v.Key), slog.String("environment_scope", v.EnvironmentScope),
		slog.Bool("masked", v.Masked), slog.Bool("protected", v.Protected))
}

// ListVariablesOptions pages a project's variables.
type ListVariablesOptions struct {
	ListOptions
}

// ListVariables returns one page of a project's CI/CD variables. The
// server shows them to maintainers and above (403 otherwise).
//
// GitLab API: [GET /projects/{id}/variables]
//
// [GET /projects/{id}/variables]: https://docs.gitlab.com/api/project_level_variables/#list-project-variables
func (c *Client) ListVariables(ctx context.Context, pid ProjectRef, opts *ListVariablesOptions) (*Page[Variable], error) {
	return listIn[Variable](ctx, c, pid, "/variables", opts)
}

// AllVariables iterates a project's CI/CD variables a page at a time.
//
// GitLab API: [GET /projects/{id}/variables]
//
// [GET /projects/{id}/variables]: https://docs.gitlab.com/api/project_level_variables/#list-project-variables
func (c *Client) AllVariables(ctx context.Context, pid ProjectRef, opts *ListVariablesOptions) iter.Seq2[*Variable, error] {
	return allIn[Variable](ctx, c, pid, "/variables", opts)
}

// VariableScope picks one variable of a key that several environment
// scopes share; without it such a key is 409 ErrConflict.
type VariableScope struct {
	EnvironmentScope string `url:"filter[environment_scope],omitempty"`
}

// variablePath is the path of a project's variable by key.
func variablePath(pid ProjectRef, key string) (string, error) {
	if key == "" {
		return "", errors.New("sourcehost: a variable needs a key")
	}
	return projectPath(pid, "/variables/"+url.PathEscape(key))
}

// GetVariable returns one of a project's CI/CD variables by key; opts may
// name its environment scope.
//
// GitLab API: [GET /projects/{id}/variables/{key}]
//
// [GET /projects/{id}/variables/{key}]: https://docs.gitlab.com/api/project_level_variables/#get-a-single-variable
func (c *Client) GetVariable(ctx context.Context, pid ProjectRef, key string, opts *VariableScope) (*Variable, error) {
	path, err := variablePath(pid, key)
	if err != nil {
		return nil, err
	}
	return do[Variable](ctx, c, http.MethodGet, path, opts, nil)
}

// CreateVariableRequest makes a CI/CD variable. Its value is left out of
// its printed forms.
type CreateVariableRequest struct {
	Key          string       `json:"key"` // letters, digits and _; at most 255
	Value        string       `json:"value"`
	VariableType VariableType `json:"variable_type,omitempty"` // default env_var
	Protected    *bool        `json:"protected,omitempty"`
	Masked       *bool        `json:"masked,omitempty"`
	// MaskedAndHidden masks the value and never answers it again.
	MaskedAndHidden  *bool  `json:"masked_and_hidden,omitempty"`
	Raw              *bool  `json:"raw,omitempty"`
	EnvironmentScope string `json:"environment_scope,omitempty"` // default "*"
	Description      string `json:"description,omitempty"`
}

// String names the request without its value.
func (r CreateVariableRequest) String() string {
	return fmt.Sprintf("sourcehost.CreateVariableRequest{Key:%q, Value:%s, EnvironmentScope:%q}", r.Key, redactedValue(r.Value), r.EnvironmentScope)
}

// GoString is String.
func (r CreateVariableRequest) GoString() string { return r.String() }

// CreateVariable makes a project's CI/CD variable (maintainers). A key
// already in the scope is 400 {"message":{"key":["(KEY) has already been
// taken"]}}; a value that cannot be masked, 400 {"message":{"value":["is
// invalid"]}}. The value is kept out of the call's errors and log lines.
//
// GitLab API: [POST /projects/{id}/variables]
//
// [POST /projects/{id}/variables]: https://docs.gitlab.com/api/project_level_variables/#create-a-variable
func (c *Client) CreateVariable(ctx context.Context, pid ProjectRef, req *CreateVariableRequest) (*Variable, error) {
	if req == nil || req.Key == "" {
		return nil, errors.New("sourcehost: CreateVariable needs a key")
	}
	path, err := projectPath(pid, "/variables")
	if err != nil {
		return nil, err
	}
	return variableCall(ctx, c, http.MethodPost, path, nil, req, req.Value)
}

// UpdateVariableRequest changes a CI/CD variable; nil fields stay as they
// are. Its value is left out of its printed forms.
type UpdateVariableRequest struct {
	Value            *string      `json:"value,omitempty"`
	VariableType     VariableType `json:"variable_type,omitempty"`
	Protected        *bool        `json:"protected,omitempty"`
	Masked           *bool        `json:"masked,omitempty"`
	Raw              *bool        `json:"raw,omitempty"`
	EnvironmentScope string       `json:"environment_scope,omitempty"`
	Description      *string      `json:"description,omitempty"`
}

// String names the request without its value.
func (r UpdateVariableRequest) String() string {
	v := ""
	if r.Value != nil {
		v = *r.Value
	}
	return fmt.Sprintf("sourcehost.UpdateVariableRequest{Value:%s, EnvironmentScope:%q}", redactedValue(v), r.EnvironmentScope)
}

// GoString is String.
func (r UpdateVariableRequest) GoString() string { return r.String() }

// UpdateVariable changes a project's CI/CD variable by key (maintainers);
// scope may pick the variable of one environment scope.
//
// GitLab API: [PUT /projects/{id}/variables/{key}]
//
// [PUT /projects/{id}/variables/{key}]: https://docs.gitlab.com/api/project_level_variables/#update-a-variable
func (c *Client) UpdateVariable(ctx context.Context, pid ProjectRef, key string, scope *VariableScope, req *UpdateVariableRequest) (*Variable, error) {
	if req == nil {
		req = &UpdateVariableRequest{}
	}
	path, err := variablePath(pid, key)
	if err != nil {
		return nil, err
	}
	value := ""
	if req.Value != nil {
		value = *req.Value
	}
	return variableCall(ctx, c, http.MethodPut, path, scope, req, value)
}

// variableCall sends a request carrying a variable's value, which is kept
// out of the call's errors and log lines.
func variableCall(ctx context.Context, c *Client, method, path string, scope *VariableScope, body any, value string) (*Variable, error) {
	r := &rest.Request{Method: method, Path: path, JSON: body}
	if value != "" {
		r.Secrets = []string{value}
	}
	if scope != nil && scope.EnvironmentScope != "" {
		r.Query = url.Values{"filter[environment_scope]": {scope.EnvironmentScope}}
	}
	var v Variable
	if _, err := c.send(ctx, r, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// DeleteVariable deletes a project's CI/CD variable by key (maintainers);
// scope may pick the variable of one environment scope.
//
// GitLab API: [DELETE /projects/{id}/variables/{key}]
//
// [DELETE /projects/{id}/variables/{key}]: https://docs.gitlab.com/api/project_level_variables/#delete-a-variable
func (c *Client) DeleteVariable(ctx context.Context, pid ProjectRef, key string, scope *VariableScope) error {
	path, err := variablePath(pid, key)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, scope, nil, nil)
	return err
}
