package orch_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// fill sets every field of m to a value that is awkward on the wire: path
// characters and spaces in strings, non-UTF-8 bytes, enums, nested
// messages, lists and maps; the first field of each oneof.
func fill(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if o := fd.ContainingOneof(); o != nil && o.Fields().Get(0) != fd {
			continue
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			k := protoreflect.ValueOfString("key one").MapKey()
			if fd.MapKey().Kind() != protoreflect.StringKind {
				continue
			}
			mp.Set(k, value(m, fd.MapValue(), depth, mp.NewValue))
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range 2 {
				l.Append(value(m, fd, depth, l.NewElement))
			}
		default:
			if fd.Kind() == protoreflect.MessageKind && depth > 3 {
				continue
			}
			m.Set(fd, value(m, fd, depth, func() protoreflect.Value { return m.NewField(fd) }))
		}
	}
}

func value(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int, newMsg func() protoreflect.Value) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(string(fd.Name()) + " a?b#c%d:e&f=g+h")
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.Int32Kind:
		return protoreflect.ValueOfInt32(7)
	case protoreflect.Int64Kind:
		return protoreflect.ValueOfInt64(1 << 40)
	case protoreflect.Uint32Kind:
		return protoreflect.ValueOfUint32(9)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(1.5)
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{0xff, 0, '+', '/', 'a'})
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(fd.Enum().Values().Get(fd.Enum().Values().Len() - 1).Number())
	case protoreflect.MessageKind:
		switch fd.Message().FullName() {
		case "google.protobuf.Duration":
			return protoreflect.ValueOfMessage(durationpb.New(90 * time.Second).ProtoReflect())
		case "google.protobuf.Timestamp":
			return protoreflect.ValueOfMessage(timestamppb.New(time.Unix(1_800_000_000, 5)).ProtoReflect())
		case "google.protobuf.DoubleValue":
			return protoreflect.ValueOfMessage(wrapperspb.Double(2.5).ProtoReflect())
		}
		v := newMsg()
		fill(v.Message(), depth+1)
		return v
	}
	panic("unhandled kind " + fd.Kind().String())
}

// rawCall calls the Raw method named after an RPC.
func rawCall(ctx context.Context, c *orch.Client, name string, req proto.Message) (proto.Message, error) {
	out := reflect.ValueOf(c.Raw()).MethodByName(name).Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(req)})
	err, _ := out[1].Interface().(error)
	resp, _ := out[0].Interface().(proto.Message)
	return resp, err
}

// concrete turns what the echo server received into the generated type.
func concrete(t *testing.T, m proto.Message) proto.Message {
	t.Helper()
	mt, err := protoregistry.GlobalTypes.FindMessageByName(m.ProtoReflect().Descriptor().FullName())
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out := mt.New().Interface()
	if err := proto.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryRPCCrossesBothTransportsIntact sends a request with every field
// set through each transport and checks the server received exactly it, with
// the token and API version, and that the answer arrives whole.
func TestEveryRPCCrossesBothTransportsIntact(t *testing.T) {
	t.Parallel()
	e := startEcho(t)
	e.setAnswer(func(_ context.Context, full string, _ proto.Message) (proto.Message, metadata.MD, error) {
		rule, _ := orchwire.RuleFor(full)
		mt, _ := protoregistry.GlobalTypes.FindMessageByName(rule.Method.Output().FullName())
		resp := mt.New()
		fill(resp, 0)
		return resp.Interface(), nil, nil
	})
	for name, c := range echoTransports(t, e, orch.WithToken("secret-token-1")) {
		for full, rule := range orchwire.Rules() {
			mt, err := protoregistry.GlobalTypes.FindMessageByName(rule.Method.Input().FullName())
			if err != nil {
				t.Fatal(err)
			}
			req := mt.New()
			fill(req, 0)
			if rule.Body == "" { // a GET's query carries no maps
				req.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
					if fd.IsMap() {
						req.Clear(fd)
					}
					return true
				})
			}
			method := string(rule.Method.Name())
			resp, err := rawCall(t.Context(), c, method, req.Interface())
			if err != nil {
				t.Errorf("%s %s: %v", name, method, err)
				continue
			}
			got, md := e.request(full)
			if diff := cmp.Diff(req.Interface(), concrete(t, got), protocmp.Transform()); diff != "" {
				t.Errorf("%s %s: request (-sent +received):\n%s", name, method, diff)
			}
			want := mt.New()
			if omt, _ := protoregistry.GlobalTypes.FindMessageByName(rule.Method.Output().FullName()); omt != nil {
				want = omt.New()
				fill(want, 0)
			}
			if diff := cmp.Diff(want.Interface(), resp, protocmp.Transform()); diff != "" {
				t.Errorf("%s %s: response (-want +got):\n%s", name, method, diff)
			}
			if got := md.Get("authorization"); len(got) != 1 || got[0] != "Bearer secret-token-1" {
				t.Errorf("%s %s: authorization %q", name, method, got)
			}
			if got := md.Get("orch-api-version"); len(got) != 1 || got[0] != "v1" {
				t.Errorf("%s %s: orch-api-version %q", name, method, got)
			}
		}
	}
}

// TestEmptyFieldsAndLatestRun: an empty run id means the latest run (sent as
// "-" in an HTTP path, which the server reads as the latest run), an empty
// namespace is the client's, and the caller's request is left unchanged.
func TestEmptyFieldsAndLatestRun(t *testing.T) {
	t.Parallel()
	e := startEcho(t)
	for name, c := range echoTransports(t, e, orch.WithNamespace("ns-1")) {
		req := &orchpb.GetWorkflowExecutionRequest{Execution: &orchpb.WorkflowExecution{WorkflowId: "wf 1"}}
		if _, err := c.Raw().GetWorkflowExecution(t.Context(), req); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if req.GetNamespace() != "" {
			t.Errorf("%s: the caller's request was changed", name)
		}
		got, _ := e.request(orchpb.WorkflowService_GetWorkflowExecution_FullMethodName)
		g := concrete(t, got).(*orchpb.GetWorkflowExecutionRequest)
		wantRun := ""
		if name == "http" {
			wantRun = "-"
		}
		if g.GetNamespace() != "ns-1" || g.GetExecution().GetWorkflowId() != "wf 1" || g.GetExecution().GetRunId() != wantRun {
			t.Errorf("%s: received %v", name, g)
		}
	}
	_, err := echoTransports(t, e)["http"].Raw().GetWorkflowExecution(t.Context(), &orchpb.GetWorkflowExecutionRequest{})
	if !errors.Is(err, orch.ErrInvalidArgument) || !strings.Contains(err.Error(), "execution.workflow_id is required") {
		t.Errorf("empty workflow id over HTTP: %v", err)
	}
}
