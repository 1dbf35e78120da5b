package erpfake

import (
	"html"
	"net/http"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// The explorer, as the ERP's REST layer (Restler's Explorer) serves it:
// /explorer redirects (302) to /explorer/, which is the explorer's page,
// and /explorer/swagger.json is the Swagger 2.0 description the page
// shows. The ERP's page is Swagger UI, scripts and styles of its own; the
// fake's is one small HTML page that lists the operations, with no script
// and nothing fetched from elsewhere.

// serveExplorerRedirect answers /explorer: the page is at /explorer/.
func (s *Server) serveExplorerRedirect(w http.ResponseWriter) {
	if !s.APIEnabled() {
		fakekit.WriteAnswer(w, moduleOff())
		return
	}
	fakekit.WriteAnswer(w, fakekit.Answer{Status: http.StatusFound, Raw: []byte{}, ContentType: "text/html; charset=UTF-8",
		Header: http.Header{"Location": {apiRoot + "/explorer/"}}})
}

// serveExplorerPage answers /explorer/: a page listing the operations,
// linking to the description.
func (s *Server) serveExplorerPage(w http.ResponseWriter, ops []apiOp) {
	if !s.APIEnabled() {
		fakekit.WriteAnswer(w, moduleOff())
		return
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="UTF-8"><title>API explorer</title>` +
		`<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}code{white-space:nowrap}</style>` +
		`</head><body><h1>API explorer</h1><p>The description of this API: <a href="swagger.json">swagger.json</a> (Swagger 2.0). ` +
		`Calls need the header ERPAPIKEY, or a web session.</p><table><tr><th>method</th><th>path</th><th>what it does</th></tr>`)
	for _, op := range ops {
		b.WriteString(`<tr><td><code>` + op.method + `</code></td><td><code>` + html.EscapeString(apiRoot+op.path) + `</code></td><td>` +
			html.EscapeString(op.summary) + `</td></tr>`)
	}
	b.WriteString(`</table></body></html>`)
	fakekit.WriteAnswer(w, fakekit.Answer{Status: http.StatusOK, Raw: []byte(b.String()), ContentType: "text/html; charset=UTF-8",
		Header: http.Header{"Content-Security-Policy": {"default-src 'none'; style-src 'unsafe-inline'"}}})
}

// serveExplorer answers /explorer/swagger.json with a Swagger 2.0
// description of the fake's own API, built from its route table.
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
