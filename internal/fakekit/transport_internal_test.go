package fakekit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The recorder HandlerTransport writes to answers as
// httptest.ResponseRecorder and its Result do, whatever the handler does:
// what the handler's writes return, and every field of the response.
func TestRecorderIsResponseRecorder(t *testing.T) {
	t.Parallel()
	type writer interface {
		http.ResponseWriter
		io.StringWriter
		http.Flusher
	}
	for _, c := range []struct {
		name string
		h    func(w writer) []any // what the writes returned
	}{
		{"nothing", func(w writer) []any { return nil }},
		{"header only", func(w writer) []any { w.Header().Set("X-A", "1"); return nil }},
		{"status only", func(w writer) []any { w.WriteHeader(http.StatusCreated); return nil }},
		{"sniffed", func(w writer) []any { n, err := w.Write([]byte("<html>hi")); return []any{n, err} }},
		{"sniffed string", func(w writer) []any { n, err := w.WriteString("plain text"); return []any{n, err} }},
		{"typed JSON", func(w writer) []any {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "2")
			w.WriteHeader(http.StatusOK)
			n, err := w.Write([]byte("{}"))
			return []any{n, err}
		}},
		{"bad length", func(w writer) []any {
			w.Header().Set("Content-Length", "x")
			n, err := w.Write([]byte("abc"))
			return []any{n, err}
		}},
		{"changed after WriteHeader", func(w writer) []any {
			w.Header().Set("X-Before", "1")
			w.WriteHeader(http.StatusAccepted)
			w.Header().Set("X-After", "2")
			w.WriteHeader(http.StatusTeapot)
			n, err := w.Write([]byte("late"))
			return []any{n, err}
		}},
		{"no body allowed", func(w writer) []any {
			w.WriteHeader(http.StatusNoContent)
			n, err := w.Write([]byte("body"))
			return []any{n, err}
		}},
		{"not modified string", func(w writer) []any {
			w.WriteHeader(http.StatusNotModified)
			n, err := w.WriteString("body")
			return []any{n, err}
		}},
		{"informational", func(w writer) []any { w.WriteHeader(http.StatusEarlyHints); return nil }},
		{"unknown status", func(w writer) []any { w.WriteHeader(599); return nil }},
		{"status past 599", func(w writer) []any { w.WriteHeader(999); return nil }},
		{"flushed", func(w writer) []any { w.Flush(); w.Header().Set("X-Late", "1"); return nil }},
		{"transfer encoding", func(w writer) []any {
			w.Header().Set("Transfer-Encoding", "chunked")
			n, err := w.Write([]byte("x"))
			return []any{n, err}
		}},
		{"trailers declared", func(w writer) []any {
			w.Header().Set("Trailer", "X-Sum, Content-Type, x-other")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte("body"))
			w.Header().Set("X-Sum", "7")
			w.Header().Set("X-Other", "8")
			return nil
		}},
		{"trailer prefix", func(w writer) []any {
			w.Write([]byte("body"))
			w.Header().Set(http.TrailerPrefix+"X-Late", "9")
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want := httptest.NewRecorder()
			wantWrites := c.h(want)
			wantResp := want.Result()
			rec := new(recorder)
			gotWrites := c.h(rec)
			gotResp := rec.result()
			if diff := cmp.Diff(wantWrites, gotWrites, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("writes (-httptest +recorder):\n%s", diff)
			}
			type view struct {
				Status                 string
				StatusCode             int
				Proto                  string
				ProtoMajor, ProtoMinor int
				Header, Trailer        http.Header
				ContentLength          int64
				Body                   string
			}
			see := func(r *http.Response) view {
				b, err := io.ReadAll(r.Body)
				if err != nil {
					t.Fatal(err)
				}
				r.Body.Close()
				return view{r.Status, r.StatusCode, r.Proto, r.ProtoMajor, r.ProtoMinor, r.Header, r.Trailer, r.ContentLength, string(b)}
			}
			if diff := cmp.Diff(see(wantResp), see(gotResp)); diff != "" {
				t.Errorf("response (-httptest +recorder):\n%s", diff)
			}
		})
	}
}

// A code WriteHeader refuses panics as the recorder's does.
func TestRecorderRefusesBadCodes(t *testing.T) {
	t.Parallel()
	for _, code := range []int{0, 99, 1000} {
		want := panicOf(func() { httptest.NewRecorder().WriteHeader(code) })
		got := panicOf(func() { new(recorder).WriteHeader(code) })
		if want == nil || got != want {
			t.Errorf("WriteHeader(%d): panic %v, want %v", code, got, want)
		}
	}
}

func panicOf(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}
