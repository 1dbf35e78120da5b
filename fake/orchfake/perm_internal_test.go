package orchfake

import (
	"testing"

	"github.com/apitwin/apitwin/internal/orchwire"
)

// The fake's public permission names are written out (so that go doc shows
// their values) and must stay the contract's, which the RPC table uses.
func TestPermissionsAreTheContracts(t *testing.T) {
	t.Parallel()
	for fake, wire := range map[string]string{
		PermAll: orchwire.PermAll, PermCluster: orchwire.PermCluster, PermClusterRead: orchwire.PermClusterRead,
		PermClusterWrite: orchwire.PermClusterWrite, PermNamespace: orchwire.PermNamespace,
		PermNamespaceCreate: orchwire.PermNamespaceCreate, PermNamespaceRead: orchwire.PermNamespaceRead,
		PermNamespaceUpdate: orchwire.PermNamespaceUpdate, PermNamespaceDelete: orchwire.PermNamespaceDelete,
		PermWorkflow: orchwire.PermWorkflow, PermWorkflowStart: orchwire.PermWorkflowStart,
		PermWorkflowSignal: orchwire.PermWorkflowSignal, PermWorkflowQuery: orchwire.PermWorkflowQuery,
		PermWorkflowRead: orchwire.PermWorkflowRead, PermWorkflowList: orchwire.PermWorkflowList,
		PermWorkflowTerm: orchwire.PermWorkflowTerminate, PermWorkflowCancel: orchwire.PermWorkflowCancel,
		PermWorkflowWorker:   orchwire.PermWorkflowWorker,
		PermWorkflowSchedule: orchwire.PermWorkflowSchedule,
	} {
		if fake != wire {
			t.Errorf("orchfake's %q is the contract's %q", fake, wire)
		}
	}
}
