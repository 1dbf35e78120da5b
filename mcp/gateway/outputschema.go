package gateway

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// outputSchema is the JSON Schema of a tool's structuredContent, as
// tools/list shows it: an object that is either its result R, inferred
// from the Go type the gateway encodes (a pointer field or a slice may be
// null, a field without omitempty is required, no other field appears),
// or the {"error": {code, message, data}} of a failure (toolError), which
// the protocol sends as structuredContent too, with isError set: a client
// that checks every structuredContent against the schema finds both
// valid. It is made once per tool, when the tools are defined.
func outputSchema[R any]() json.RawMessage {
	t := reflect.TypeFor[R]()
	for t.Kind() == reflect.Pointer { // the result itself is never null
		t = t.Elem()
	}
	result, err := jsonschema.ForType(t, nil)
	if err != nil {
		panic("gateway: output schema of " + t.String() + ": " + err.Error()) // a type of package mcp: a bug
	}
	b, err := json.Marshal(&jsonschema.Schema{
		Type:  "object",
		AnyOf: []*jsonschema.Schema{result, failureSchema},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// failureSchema is the structuredContent of a failed call.
var failureSchema = &jsonschema.Schema{
	Type: "object",
	Properties: map[string]*jsonschema.Schema{
		"error": {
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"code":    {Type: "integer"},
				"message": {Type: "string"},
				"data":    {Type: "object"},
			},
			Required: []string{"code", "message"},
		},
	},
	Required:             []string{"error"},
	AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
}
