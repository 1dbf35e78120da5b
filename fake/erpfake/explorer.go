package erpfake

import (
	"net/http"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// serveExplorer answers the explorer's paths with a Swagger 2.0 description
// of the fake's own API, built from its route table. The ERP serves an
// interactive page at /explorer and the document at /explorer/swagger.json;
// the fake serves the document at both, since the page is for browsers.
func (s *Server) serveExplorer(w http.ResponseWriter, r *http.Request, ops []apiOp) {
	if !s.APIEnabled() {
		fakekit.WriteAnswer(w, moduleOff())
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	paths := map[string]map[string]any{}
	for _, op := range ops {
		params := make([]map[string]any, 0, len(op.params))
		for _, p := range op.params {
			params = append(params, map[string]any{"name": p.name, "in": p.in, "type": p.typ, "required": p.required, "description": p.description})
		}
		if paths[op.path] == nil {
			paths[op.path] = map[string]any{}
		}
		resource := strings.Split(strings.TrimPrefix(op.path, "/"), "/")[0]
		paths[op.path][strings.ToLower(op.method)] = map[string]any{
			"operationId": strings.ToLower(op.method) + strings.ReplaceAll(strings.ReplaceAll(op.path, "/", "_"), "{id}", "id"),
			"summary":     op.summary,
			"tags":        []string{resource},
			"parameters":  params,
			"security":    []map[string][]string{{"api_key": {}}},
			"responses": map[string]any{
				"200": map[string]any{"description": "Success"},
				"401": map[string]any{"description": "No valid API key or session"},
				"404": map[string]any{"description": "Not found"},
			},
		}
	}
	fakekit.WriteAnswer(w, ok(map[string]any{
		"swagger":  "2.0",
		"info":     map[string]any{"title": "ERP REST API (apitwin fake)", "version": "1", "description": "The resources the fake serves, under " + apiRoot},
		"host":     r.Host,
		"basePath": apiRoot,
		"schemes":  []string{scheme},
		"consumes": []string{"application/json"},
		"produces": []string{"application/json"},
		"securityDefinitions": map[string]any{
			"api_key": map[string]any{"type": "apiKey", "name": "ERPAPIKEY", "in": "header"},
		},
		"paths": paths,
	}))
}
