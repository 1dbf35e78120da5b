package fake_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// BenchmarkStart is what a test pays for a fake: start it, make one
// request through its client, close it, on loopback and in memory, beside
// the floor of the same run (httptest.NewServer, one request, Close). Read
// the ratios from one run:
//
//	go test -run '^$' -bench 'BenchmarkStart$' -benchmem ./fake/
func BenchmarkStart(b *testing.B) {
	ctx := context.Background()
	hello := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "{}") })
	b.Run("floor=httptest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := httptest.NewServer(hello)
			resp, err := s.Client().Get(s.URL)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			s.Close()
		}
	})
	type starter struct {
		name string
		run  func(tb testing.TB, inMemory bool)
	}
	starters := []starter{
		{"erpfake", func(tb testing.TB, mem bool) {
			var s *erpfake.Server
			if mem {
				s = erpfake.StartInMemory(tb)
			} else {
				s = erpfake.Start(tb)
			}
			if err := s.Client().Ping(ctx); err != nil {
				tb.Fatal(err)
			}
			s.Close()
		}},
		{"cloudauthfake", func(tb testing.TB, mem bool) {
			var s *cloudauthfake.Server
			if mem {
				s = cloudauthfake.StartInMemory(tb)
			} else {
				s = cloudauthfake.Start(tb)
			}
			if _, err := s.Client().PublicKeys(ctx); err != nil {
				tb.Fatal(err)
			}
			s.Close()
		}},
		{"sourcehostfake", func(tb testing.TB, mem bool) {
			var s *sourcehostfake.Server
			if mem {
				s = sourcehostfake.StartInMemory(tb)
			} else {
				s = sourcehostfake.Start(tb)
			}
			if _, err := s.Client().CurrentUser(ctx); err != nil {
				tb.Fatal(err)
			}
			s.Close()
		}},
		{"orchfake", func(tb testing.TB, mem bool) {
			var s *orchfake.Server
			if mem {
				s = orchfake.StartInMemory(tb)
			} else {
				s = orchfake.Start(tb)
			}
			c := s.HTTPClient()
			if _, err := c.DescribeNamespace(ctx, "default"); err != nil {
				tb.Fatal(err)
			}
			c.Close()
			s.Close()
		}},
		{"mcpfake", func(tb testing.TB, mem bool) {
			var s *mcpfake.Server
			if mem {
				s = mcpfake.StartInMemory(tb)
			} else {
				s = mcpfake.Start(tb)
			}
			if _, err := s.Client().ListProjects(ctx, nil); err != nil {
				tb.Fatal(err)
			}
			s.Close()
		}},
		{"fake.New", func(tb testing.TB, mem bool) {
			var opts []fake.Option
			if mem {
				opts = append(opts, fake.InMemory())
			}
			f, err := fake.New(opts...)
			if err != nil {
				tb.Fatal(err)
			}
			if err := f.Clients.ERP.Ping(ctx); err != nil {
				tb.Fatal(err)
			}
			f.Close()
		}},
	}
	for _, s := range starters {
		for _, mode := range []struct {
			name string
			mem  bool
		}{{"loopback", false}, {"in-memory", true}} {
			b.Run(s.name+"/"+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					s.run(b, mode.mem)
				}
			})
		}
	}
}
