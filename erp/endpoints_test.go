package erp_test

import (
	"context"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/apitable/apitabletest"
)

// TestEndpointTable holds the client, the fake and the doc comments to the
// endpoint tables (internal/apitable.ERP and ERPWeb): every method calls
// the endpoints its rows name, the fake serves them, and the method's doc
// names them with their documentation links.
func TestEndpointTable(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	apitabletest.Check(t, []*apitable.Table{apitable.ERP(), apitable.ERPWeb()}, srv, apitabletest.Setup{
		Dir:    ".",
		Client: srv.Client(),
		Calls: map[string]func(context.Context) error{
			// A client with an API key has nothing to log in with.
			"Login": func(ctx context.Context) error { return srv.ClientWithLogin("admin", "wrong").Login(ctx) },
			// The client checks the status before it calls.
			"CloseProposal": func(ctx context.Context) error {
				_, err := srv.Client().CloseProposal(ctx, 1, &erp.CloseProposalRequest{Status: erp.ProposalSigned})
				return err
			},
		},
	})
}
