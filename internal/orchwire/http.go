package orchwire

import (
	"fmt"
	"strings"
	"sync"

	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Headers (and, lower-cased, gRPC metadata keys) both sides use.
const (
	HeaderAPIVersion = "Orch-API-Version"
	HeaderLimit      = "X-RateLimit-Limit"
	HeaderRemaining  = "X-RateLimit-Remaining"
	HeaderReset      = "X-RateLimit-Reset"
	HeaderScope      = "X-RateLimit-Scope"
	HeaderRetryAfter = "Retry-After"
)

// API versions. Paths carry the major version; v1beta1 is deprecated and its
// support ended on Sunset.
const (
	V1         = "v1"
	V1Beta1    = "v1beta1"
	PathPrefix = "/api/"
	Sunset     = "Tue, 31 Dec 2024 23:59:59 GMT"
)

// Rule is the HTTP binding of one RPC, from its google.api.http option.
type Rule struct {
	// FullMethod is the gRPC method name, "/apitwin.orch.v1.WorkflowService/StartWorkflowExecution".
	FullMethod string
	// Method is the RPC's descriptor.
	Method protoreflect.MethodDescriptor
	// Verb is the HTTP method: GET, POST or DELETE.
	Verb string
	// Path is the template under /api/v1, with {field.path} variables.
	Path string
	// Body is "*" when the request message is the JSON body, "" when the
	// fields not in the path go in the query string.
	Body string
}

// PathFields are the request fields the path template binds, as dotted
// field paths in order ("namespace", "execution.workflow_id", …).
func (r Rule) PathFields() []string {
	var fields []string
	rest := r.Path
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			return fields
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return fields
		}
		fields = append(fields, rest[open+1:open+end])
		rest = rest[open+end+1:]
	}
}

var rules = sync.OnceValues(func() (map[string]Rule, error) {
	all := make(map[string]Rule)
	files := []protoreflect.FileDescriptor{
		orchpb.File_apitwin_orch_v1_workflow_service_proto,
		orchpb.File_apitwin_orch_v1_admin_service_proto,
	}
	for _, file := range files {
		services := file.Services()
		for i := 0; i < services.Len(); i++ {
			svc := services.Get(i)
			methods := svc.Methods()
			for j := 0; j < methods.Len(); j++ {
				m := methods.Get(j)
				rule, ok := proto.GetExtension(m.Options(), annotations.E_Http).(*annotations.HttpRule)
				if !ok || rule == nil {
					return nil, fmt.Errorf("orchwire: %s has no google.api.http option", m.FullName())
				}
				r := Rule{
					FullMethod: "/" + string(svc.FullName()) + "/" + string(m.Name()),
					Method:     m,
					Body:       rule.GetBody(),
				}
				switch p := rule.GetPattern().(type) {
				case *annotations.HttpRule_Get:
					r.Verb, r.Path = "GET", p.Get
				case *annotations.HttpRule_Post:
					r.Verb, r.Path = "POST", p.Post
				case *annotations.HttpRule_Delete:
					r.Verb, r.Path = "DELETE", p.Delete
				default:
					return nil, fmt.Errorf("orchwire: %s: unsupported HTTP verb", m.FullName())
				}
				all[r.FullMethod] = r
			}
		}
	}
	return all, nil
})

// Rules are the HTTP bindings of every RPC of the contract, by gRPC method
// name.
func Rules() map[string]Rule {
	all, err := rules()
	if err != nil {
		// The contract is compiled in; a missing option is a build defect
		// that the package's tests catch.
		panic(err)
	}
	return all
}

// RuleFor is the binding of one gRPC method name.
func RuleFor(fullMethod string) (Rule, bool) {
	r, ok := Rules()[fullMethod]
	return r, ok
}
