package erp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/internal/rest"
)

// APIDescription is the machine-readable description of the API the
// explorer publishes (Swagger 2.0, as the ERP's Restler layer writes it).
type APIDescription struct {
	Swagger  string                          `json:"swagger"`
	OpenAPI  string                          `json:"openapi"` // set instead of Swagger by OpenAPI 3 documents
	Info     APIInfo                         `json:"info"`
	Host     string                          `json:"host"`
	BasePath string                          `json:"basePath"`
	Paths    map[string]map[string]Operation `json:"paths"` // path → lower-case method → operation
	// Raw is the document as served, for what these types leave out.
	Raw json.RawMessage `json:"-"`
}

// APIInfo is the description's info block.
type APIInfo struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description"`
}

// Operation is one method on one path.
type Operation struct {
	OperationID string      `json:"operationId"`
	Summary     string      `json:"summary"`
	Description string      `json:"description"`
	Tags        []string    `json:"tags"`
	Parameters  []Parameter `json:"parameters"`
}

// Parameter is a parameter of an operation.
type Parameter struct {
	Name        string `json:"name"`
	In          string `json:"in"` // path, query, body
	Required    bool   `json:"required"`
	Type        string `json:"type"`
	Description string `json:"description"`
}

// Endpoint is a method and a path the API serves.
type Endpoint struct {
	Method  string // upper case: GET, POST, …
	Path    string // relative to the API root: /invoices/{id}/validate
	Summary string
}

// Endpoints lists the described endpoints, by path then method.
func (d *APIDescription) Endpoints() []Endpoint {
	var out []Endpoint
	for path, ops := range d.Paths {
		for method, op := range ops {
			out = append(out, Endpoint{Method: strings.ToUpper(method), Path: path, Summary: op.Summary})
		}
	}
	slices.SortFunc(out, func(a, b Endpoint) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out
}

// Has reports whether the description holds method on path.
func (d *APIDescription) Has(method, path string) bool {
	_, ok := d.Paths[path][strings.ToLower(method)]
	return ok
}

// DescribeAPI fetches the API description the explorer publishes (the
// explorer's page itself is for browsers).
//
// ERP API: GET /explorer/swagger.json
func (c *Client) DescribeAPI(ctx context.Context) (*APIDescription, error) {
	var raw bytes.Buffer
	if _, err := c.call(ctx, &rest.Request{Method: http.MethodGet, Path: "/explorer/swagger.json"}, &raw); err != nil {
		return nil, err
	}
	d := &APIDescription{Raw: json.RawMessage(raw.Bytes())}
	if err := json.Unmarshal(raw.Bytes(), d); err != nil {
		return nil, fmt.Errorf("erp: reading the API description: %w", err)
	}
	if d.Swagger == "" && d.OpenAPI == "" {
		return nil, fmt.Errorf("erp: the explorer answered something that is not an API description")
	}
	return d, nil
}
