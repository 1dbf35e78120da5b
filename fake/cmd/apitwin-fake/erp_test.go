package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/internal/fakecmd"
)

// --erp-bare-create-ids makes the ERP answer a create with the bare new id,
// as most ERP versions do; the erp client reads the record back.
func TestERPBareCreateIDsFlag(t *testing.T) {
	t.Parallel()
	for _, bare := range []bool{false, true} {
		args := []string{"--erp-port", "0", "--cloudauth-port", "0", "--orch-grpc-port", "0", "--orch-http-port", "0",
			"--sourcehost-port", "0", "--mcp-port", "0", "--control-port", "0", "--frozen-clock"}
		if bare {
			args = append(args, "--erp-bare-create-ids")
		}
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- fakecmd.Run(ctx, args, pw, io.Discard, func(string) string { return "" })
			pw.Close()
		}()
		erpLine := map[string]string{}
		lines := bufio.NewScanner(pr)
		for lines.Scan() && lines.Text() != "ready" {
			if f := strings.Fields(lines.Text()); len(f) > 0 && f[0] == "erp" {
				for _, kv := range f[1:] {
					k, v, _ := strings.Cut(kv, "=")
					erpLine[k] = v
				}
			}
		}
		go func() { _, _ = io.Copy(io.Discard, pr) }()

		req, _ := http.NewRequest(http.MethodPost, erpLine["url"]+erp.APIPath+"/thirdparties", strings.NewReader(`{"name":"Raw"}`))
		req.Header.Set(erp.APIKeyHeader, erpLine["api_key"])
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.HasPrefix(string(body), "{"); resp.StatusCode != 200 || got == bare {
			t.Errorf("bare=%v: create answered %d %s", bare, resp.StatusCode, body)
		}
		c, err := erp.New(erpLine["url"], erp.WithAPIKey(erpLine["api_key"]))
		if err != nil {
			t.Fatal(err)
		}
		tp, err := c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Typed", Client: erp.Customer})
		if err != nil || tp.ID != 2 || tp.Name != "Typed" || tp.CustomerCode == "" {
			t.Errorf("bare=%v: client create %+v %v", bare, tp, err)
		}
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("run: %v", err)
		}
	}
}
