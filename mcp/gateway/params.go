package gateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/mcpwire"
	"github.com/apitwin/apitwin/mcp"
)

// One table per tool describes its params. The same table checks the params
// of a call (on both the JSON-RPC and the MCP side) and becomes the tool's
// JSON Schema in tools/list, so the two can never disagree.

type paramKind int

const (
	kindInteger paramKind = iota
	kindString
	kindBoolean
	kindStrings   // array of strings
	kindStringMap // object of string values
)

type param struct {
	name        string
	kind        paramKind
	required    bool
	enum        []string // allowed values of a string, or of each element of an array
	min, max    int64    // bounds of an integer, when max > 0 (or min > 0)
	description string
}

// The params every list and search method shares.
var (
	pageParam = param{name: "page", kind: kindInteger, min: 1, max: 1 << 31, description: "Page number, from 1."}
	// per_page above 100 is read as 100, as the source-hosting API reads
	// it (listOptions), rather than refused.
	perPageParam = param{name: "per_page", kind: kindInteger, min: 1, max: 1 << 31, description: "Items per page (default 20); more than 100 is read as 100."}
	projectParam = param{name: "project_id", kind: kindInteger, required: true, min: 1, max: 1 << 62, description: "ID of the project."}
	cacheParams  = []param{
		{name: "cache", kind: kindBoolean, description: "Serve from and store in the gateway's response cache."},
		{name: "cache_ttl", kind: kindInteger, min: 1, max: maxCacheTTL, description: "Seconds a cached answer stays fresh (default 60); implies cache unless cache is false."},
	}
)

const (
	maxPerPage  = 100
	maxCacheTTL = 86400 // a day
)

// checkParams checks raw (a JSON object, or nil for no params) against the
// table: no unknown names, the right JSON type for each, enums and bounds
// kept, required ones present. A null value counts as absent.
func checkParams(raw json.RawMessage, table []param) *mcp.Error {
	if e, ok := checkParamsFast(raw, table); ok {
		return e
	}
	return checkParamsMap(raw, table)
}

// checkParamsFast is checkParams by a walk over the members, without a map
// of them. It reports false, for checkParamsMap to answer, where the two
// could differ: params that are not an object, a key that is not plain, a
// name given twice (the map keeps the last). With several bad params the
// first is answered, which the map, in its random order, may also have
// picked.
func checkParamsFast(raw json.RawMessage, table []param) (*mcp.Error, bool) {
	if len(raw) == 0 || len(table) > 64 {
		return nil, false
	}
	var seen, present uint64
	var bad *mcp.Error
	twice := false
	if !mcpwire.Members(raw, func(key, v []byte) bool {
		i := paramIndex(table, key)
		switch {
		case i < 0:
			if bad == nil {
				bad = paramError(string(key), "unknown parameter")
			}
			return true
		case seen&(1<<i) != 0:
			twice = true
			return false
		}
		seen |= 1 << i
		if string(v) == "null" {
			return true
		}
		present |= 1 << i
		if bad == nil {
			if reason := table[i].check(v); reason != "" {
				bad = paramError(table[i].name, reason)
			}
		}
		return true
	}) || twice {
		return nil, false
	}
	if bad != nil {
		return bad, true
	}
	for i := range table {
		if table[i].required && present&(1<<i) == 0 {
			return paramError(table[i].name, "is required"), true
		}
	}
	return nil, true
}

func paramIndex(table []param, name []byte) int {
	for i := range table {
		if table[i].name == string(name) {
			return i
		}
	}
	return -1
}

// checkParamsMap is checkParams through a map of the members.
func checkParamsMap(raw json.RawMessage, table []param) *mcp.Error {
	var obj map[string]json.RawMessage
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &obj); err != nil {
			return paramError("params", "must be a JSON object")
		}
	}
	for name, v := range obj {
		p := findParam(table, name)
		if p == nil {
			return paramError(name, "unknown parameter")
		}
		if string(v) == "null" {
			continue
		}
		if reason := p.check(v); reason != "" {
			return paramError(name, reason)
		}
	}
	for i := range table {
		if p := &table[i]; p.required {
			if v, ok := obj[p.name]; !ok || string(v) == "null" {
				return paramError(p.name, "is required")
			}
		}
	}
	return nil
}

func findParam(table []param, name string) *param {
	for i := range table {
		if table[i].name == name {
			return &table[i]
		}
	}
	return nil
}

// check returns why v is not a valid value of p, or "".
func (p *param) check(v json.RawMessage) string {
	switch p.kind {
	case kindInteger:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			if _, ferr := strconv.ParseFloat(string(v), 64); ferr == nil {
				return "must be an integer (no fraction or exponent)"
			}
			return "must be an integer"
		}
		if (p.min != 0 || p.max != 0) && (n < p.min || n > p.max) {
			return fmt.Sprintf("must be between %d and %d", p.min, p.max)
		}
	case kindString:
		var s string
		if v[0] != '"' || json.Unmarshal(v, &s) != nil {
			return "must be a string"
		}
		if p.required && strings.TrimSpace(s) == "" {
			return "must not be empty"
		}
		if p.enum != nil && !slices.Contains(p.enum, s) {
			return "must be one of " + strings.Join(p.enum, ", ")
		}
	case kindBoolean:
		if s := string(v); s != "true" && s != "false" {
			return "must be a boolean"
		}
	case kindStrings:
		var ss []string
		if v[0] != '[' || json.Unmarshal(v, &ss) != nil {
			return "must be an array of strings"
		}
		for _, s := range ss {
			if p.enum != nil && !slices.Contains(p.enum, s) {
				return fmt.Sprintf("%q is not one of %s", s, strings.Join(p.enum, ", "))
			}
		}
	case kindStringMap:
		var m map[string]string
		if v[0] != '{' || json.Unmarshal(v, &m) != nil {
			return "must be an object of string values"
		}
	}
	return ""
}

// schema is the JSON Schema of a params table, as tools/list shows it.
func schema(table []param) json.RawMessage {
	props := make(map[string]any, len(table))
	required := []string{}
	for _, p := range table {
		s := map[string]any{"description": p.description}
		switch p.kind {
		case kindInteger:
			s["type"] = "integer"
			if p.min != 0 || p.max != 0 {
				s["minimum"], s["maximum"] = p.min, p.max
			}
		case kindString:
			s["type"] = "string"
			if p.enum != nil {
				s["enum"] = p.enum
			}
			if p.required {
				s["minLength"] = 1
			}
		case kindBoolean:
			s["type"] = "boolean"
		case kindStrings:
			item := map[string]any{"type": "string"}
			if p.enum != nil {
				item["enum"] = p.enum
			}
			s["type"], s["items"] = "array", item
		case kindStringMap:
			s["type"], s["additionalProperties"] = "object", map[string]any{"type": "string"}
		}
		props[p.name] = s
		if p.required {
			required = append(required, p.name)
		}
	}
	b, err := json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	})
	if err != nil {
		panic(err) // built from constants: cannot fail
	}
	return b
}
