package orchtest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchtest"
)

// Updates sent from callbacks: a result, the same id again (not run
// twice), a rejection, an unknown name, and a closed run that refuses a
// new update but still answers a known id.
func TestEnvUpdates(t *testing.T) {
	t.Parallel()
	env := orchtest.New(t)
	orchtest.RegisterWorkflow(env, "Tally", tally)
	var first, again, refused, unknown *orchtest.Update
	send := func(name, id string, arg any) *orchtest.Update {
		u, err := env.UpdateWorkflow(name, id, arg)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	env.After(time.Minute, func() { first = send("add", "u1", 2) })
	env.After(2*time.Minute, func() {
		again = send("add", "u1", 2)
		refused = send("add", "", 0)
		unknown = send("remove", "", 1)
	})
	env.After(3*time.Minute, func() { send("add", "", 3) })
	env.ExecuteWorkflow("Tally", nil, nil)
	var total int
	if err := env.Result(&total); err != nil || total != 5 {
		t.Fatalf("result %d, %v (u1 added once, then 3)", total, err)
	}
	var n int
	if err := first.Get(&n); err != nil || n != 2 || !first.Accepted() || again != first {
		t.Fatalf("first %d, %v; again is first: %v", n, err, again == first)
	}
	var failed *orch.UpdateFailedError
	if err := refused.Get(nil); !errors.As(err, &failed) || refused.Accepted() || !refused.Completed() || failed.Failure.GetMessage() != "0 is not positive" {
		t.Fatalf("refused: %v", err)
	}
	if err := unknown.Get(nil); !errors.As(err, &failed) || !strings.Contains(err.Error(), `unknown update "remove"`) {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := env.UpdateWorkflow("add", "late", 1); err == nil || !strings.Contains(err.Error(), "already completed") {
		t.Fatalf("update of the closed run: %v", err)
	}
	if u, err := env.UpdateWorkflow("add", "u1", 2); err != nil || u != first {
		t.Fatalf("a known id of the closed run: %v, %v", u, err)
	}
}
