package gateway_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apitwin/apitwin/mcp"
)

// configure_webhook called again with the same project, URL and events
// (an assistant retrying) answers the hook it made the first time, with
// created false, and makes no second one; other events make a new hook.
// list_hooks shows them and delete_hook removes one. On the old gateway
// the second call made a duplicate.
func TestConfigureWebhookIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	up := srv.Upstream()
	c := srv.Client()
	p := &mcp.ConfigureWebhookParams{ProjectID: pid, URL: "http://localhost:9/hook", Events: []string{mcp.EventIssues, mcp.EventPush}}
	first, err := c.ConfigureWebhook(ctx, p)
	if err != nil || !first.Created {
		t.Fatalf("first: %+v %v, want created", first, err)
	}
	again, err := c.ConfigureWebhook(ctx, &mcp.ConfigureWebhookParams{ProjectID: pid, URL: p.URL, Events: []string{mcp.EventPush, mcp.EventIssues}})
	if err != nil || again.Created || again.ID != first.ID {
		t.Fatalf("again: %+v %v, want hook %d with created false", again, err, first.ID)
	}
	if n := len(up.Hooks(pid)); n != 1 {
		t.Fatalf("%d hooks upstream after the same call twice, want 1", n)
	}
	other, err := c.ConfigureWebhook(ctx, &mcp.ConfigureWebhookParams{ProjectID: pid, URL: p.URL, Events: []string{mcp.EventPipelines}})
	if err != nil || !other.Created || other.ID == first.ID {
		t.Fatalf("other events: %+v %v, want a new hook", other, err)
	}

	hooks, err := c.ListHooks(ctx, &mcp.ListHooksParams{ProjectID: pid})
	if err != nil || len(hooks.Data) != 2 || hooks.Data[0].ID != first.ID || !hooks.Data[0].IssuesEvents || hooks.Data[1].PushEvents {
		t.Fatalf("list_hooks: %+v %v", hooks, err)
	}
	gone, err := c.DeleteHook(ctx, &mcp.DeleteHookParams{ProjectID: pid, HookID: first.ID})
	if err != nil || !gone.Deleted || gone.HookID != first.ID {
		t.Fatalf("delete_hook: %+v %v", gone, err)
	}
	if hs := up.Hooks(pid); len(hs) != 1 || hs[0].ID != other.ID {
		t.Errorf("hooks upstream after delete: %+v", hs)
	}
	// Deleting it again: 404, which an assistant reads as done already.
	_, err = c.DeleteHook(ctx, &mcp.DeleteHookParams{ProjectID: pid, HookID: first.ID})
	var e *mcp.Error
	if !errors.As(err, &e) || e.Status != 404 {
		t.Errorf("delete_hook again: %v, want -32000 with status 404", err)
	}
	// A cached list_hooks is dropped by the write.
	if _, err := c.ListHooks(ctx, &mcp.ListHooksParams{ProjectID: pid, CacheOptions: mcp.CacheOptions{Cache: mcp.Ptr(true)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteHook(ctx, &mcp.DeleteHookParams{ProjectID: pid, HookID: other.ID}); err != nil {
		t.Fatal(err)
	}
	if hooks, err := c.ListHooks(ctx, &mcp.ListHooksParams{ProjectID: pid, CacheOptions: mcp.CacheOptions{Cache: mcp.Ptr(true)}}); err != nil || len(hooks.Data) != 0 {
		t.Errorf("list_hooks after deleting the last: %+v %v", hooks, err)
	}
}
