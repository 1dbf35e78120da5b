package orchfake

import (
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/orchsem"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// The table of command rules covers every command type of the contract,
// and only those: a type added to the .proto fails here until it has a
// rule. Each rule refuses a command whose attributes are another type's
// (BAD_COMMAND) before its own check. (Which commands end the run is
// orchsem.ClosesRun, the rule orch's worker and orchtest follow too.)
func TestEveryCommandTypeHasARule(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	e := &execution{ns: s.st.namespaces[DefaultNamespace]}
	for n := range orchpb.CommandType_name {
		typ := orchpb.CommandType(n)
		r, ok := commandRules[typ]
		if typ == orchpb.CommandType_COMMAND_TYPE_UNSPECIFIED {
			if ok {
				t.Error("a rule for COMMAND_TYPE_UNSPECIFIED")
			}
			continue
		}
		if !ok {
			t.Errorf("%s: no rule", typ)
			continue
		}
		// A record-marker command's attributes on every other type, and a
		// timer's on a record marker.
		other := &orchpb.Command{CommandType: typ, Attributes: &orchpb.Command_RecordMarkerCommandAttributes{
			RecordMarkerCommandAttributes: &orchpb.RecordMarkerCommandAttributes{MarkerName: "m"}}}
		if typ == orchpb.CommandType_RECORD_MARKER {
			other.Attributes = &orchpb.Command_StartTimerCommandAttributes{StartTimerCommandAttributes: &orchpb.StartTimerCommandAttributes{}}
		}
		ce := r.check(&checking{e: e, i: 3}, other)
		if ce == nil || ce.cause != orchpb.WorkflowTaskFailedCause_BAD_COMMAND || !strings.Contains(ce.msg, "command 3: attributes do not match command_type "+typ.String()) {
			t.Errorf("%s with another type's attributes: %+v", typ, ce)
		}
	}
	if len(commandRules) != len(orchpb.CommandType_name)-1 {
		t.Errorf("%d rules for %d command types", len(commandRules), len(orchpb.CommandType_name)-1)
	}
}

// A command that ends the run (orchsem.ClosesRun) must be its task's
// last: before another it is refused as BAD_COMMAND; any other command
// before another is judged on its attributes alone.
func TestOnlyTheLastCommandMayCloseTheRun(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	e := &execution{ns: s.st.namespaces[DefaultNamespace]}
	for n := range orchpb.CommandType_name {
		typ := orchpb.CommandType(n)
		if _, ok := commandRules[typ]; !ok {
			continue
		}
		ce := s.checkCommands(e, []*orchpb.Command{{CommandType: typ}, {CommandType: typ}})
		refused := ce != nil && ce.cause == orchpb.WorkflowTaskFailedCause_BAD_COMMAND && strings.Contains(ce.msg, "closes the workflow but is not the last")
		if refused != orchsem.ClosesRun(typ) {
			t.Errorf("%s before another: %+v", typ, ce)
		}
	}
}
