// Package apitabletest holds a client and its fake to their endpoint
// tables (package apitable): each client's tests call Check, which calls
// every method of the client against the fake and reads its doc comment.
package apitabletest

import (
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/apitable"
)

// Fake is what Check needs of the fake the client is pointed at: its
// request log, whose entries name the route that answered
// (control.Request.Route). Every apitwin fake is one.
type Fake interface {
	Requests() []control.Request
	ResetRequests()
}

// Setup says how to call the client's methods.
type Setup struct {
	// Dir is the client package's source directory, for its doc comments.
	Dir string
	// Client is the *Client under test, pointed at the fake with valid
	// credentials.
	Client any
	// Values are arguments by type, for the parameters Check cannot make
	// itself (an interface such as sourcehost.ProjectRef, a value that must
	// be valid): each method parameter of the type gets it.
	Values []any
	// Calls call a method in a way of their own, by name: for a method
	// whose arguments must come from the fake (a token it issued) or
	// whose client must be another (a login client). The error is the
	// method's.
	Calls map[string]func(ctx context.Context) error
}

// Check calls every method of the client that the tables name (and
// fails on any exported method that takes a context but is in no table,
// Do aside: a raw call for endpoints the SDK does not wrap), and checks:
//
//   - each reaches the fake on its rows' routes and no other: a call the
//     fake answers without a route (404, 405) is a client method the fake
//     does not serve;
//   - each row with client methods is reached by at least one of them;
//   - each method's doc comment names its endpoints: a paragraph
//     "<Label>: [GET /path]…" whose links go to the rows' docs.
//
// The arguments are made from their types (Setup.Values, else a non-zero
// value of the kind: "x", 1, a filled struct), so most calls are refused
// by the fake (an unknown project, a bad value) after it matched the
// route, which is all Check needs.
func Check(t *testing.T, tables []*apitable.Table, fake Fake, s Setup) {
	t.Helper()
	for _, tb := range tables {
		for _, p := range tb.Problems() {
			t.Error(p)
		}
	}
	rows := map[string][]row{} // by client method
	for _, tb := range tables {
		for _, e := range tb.Endpoints {
			for _, m := range e.Client {
				rows[m] = append(rows[m], row{tb, e})
			}
		}
	}
	methods := clientMethods(reflect.TypeOf(s.Client))
	for _, m := range methods {
		if _, ok := rows[m]; !ok {
			t.Errorf("%s.Client.%s is in no endpoint table: add it to the Client column of the rows of the endpoints it calls (internal/apitable)", pkgName(tables), m)
		}
	}
	for m := range rows {
		if !slices.Contains(methods, m) {
			t.Errorf("the endpoint table names %s.Client.%s, which does not exist (or takes no context)", pkgName(tables), m)
		}
	}
	checkCalls(t, rows, methods, fake, s)
	checkDocs(t, tables, rows, s.Dir)
}

// CheckRoutes checks that a request for each row of the table (its path
// made from the pattern: each {name} "1", {$} nothing) is routed by match
// (a fake's router) to the row's own pattern, so that no row shadows
// another. skip names the rows (by Handler) the fake serves another way.
func CheckRoutes(t *testing.T, tb *apitable.Table, match func(*http.Request) string, skip ...string) {
	t.Helper()
	for _, e := range tb.Endpoints {
		if slices.Contains(skip, e.Handler) {
			continue
		}
		path := tb.Root + strings.TrimSuffix(e.Path, "{$}")
		for {
			i := strings.IndexByte(path, '{')
			if i < 0 {
				break
			}
			j := strings.IndexByte(path[i:], '}')
			path = path[:i] + "1" + path[i+j+1:]
		}
		r := httptest.NewRequest(e.Method, path, nil)
		if got := match(r); got != tb.Pattern(e) {
			t.Errorf("%s %s is routed to %q, not to its row's %q", e.Method, path, got, tb.Pattern(e))
		}
	}
}

type row struct {
	t *apitable.Table
	e apitable.Endpoint
}

func pkgName(tables []*apitable.Table) string {
	return tables[0].Client[strings.LastIndexByte(tables[0].Client, '/')+1:]
}

var ctxType = reflect.TypeFor[context.Context]()

// clientMethods are the exported methods of *Client that take a context
// first: those that call the API. Do is the raw call, for endpoints the
// SDK does not wrap.
func clientMethods(typ reflect.Type) []string {
	var out []string
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		if m.Name == "Do" || m.Type.NumIn() < 2 || m.Type.In(1) != ctxType {
			continue
		}
		out = append(out, m.Name)
	}
	return out
}

func checkCalls(t *testing.T, rows map[string][]row, methods []string, fake Fake, s Setup) {
	t.Helper()
	ctx := t.Context()
	cv := reflect.ValueOf(s.Client)
	reached := map[string]bool{} // routes
	for _, m := range methods {
		want, ok := rows[m]
		if !ok {
			continue
		}
		fake.ResetRequests()
		var err error
		if call, ok := s.Calls[m]; ok {
			err = call(ctx)
		} else {
			err = callByTypes(ctx, cv.MethodByName(m), s.Values)
		}
		var got []string
		for _, r := range fake.Requests() {
			got = append(got, r.Route)
		}
		if len(got) == 0 {
			t.Errorf("Client.%s sent nothing to the fake (error: %v): give it arguments in Setup.Values or Setup.Calls", m, err)
			continue
		}
		for _, route := range got {
			i := slices.IndexFunc(want, func(r row) bool { return r.t.Pattern(r.e) == route })
			if i < 0 {
				t.Errorf("Client.%s reached route %q (error: %v), which its rows do not name; rows: %s", m, route, err, patterns(want))
				continue
			}
			reached[route] = true
		}
	}
	for m, rs := range rows {
		if !slices.Contains(methods, m) {
			continue
		}
		for _, r := range rs {
			if !reached[r.t.Pattern(r.e)] {
				t.Errorf("%s: none of its client methods %v reached it", r.t.Pattern(r.e), r.e.Client)
			}
		}
	}
}

func patterns(rs []row) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.t.Pattern(r.e))
	}
	return strings.Join(out, ", ")
}

// callByTypes calls m with arguments made from their types, draining an
// iterator it returns, and returns its error.
func callByTypes(ctx context.Context, m reflect.Value, values []any) error {
	typ := m.Type()
	args := make([]reflect.Value, typ.NumIn())
	args[0] = reflect.ValueOf(ctx)
	for i := 1; i < typ.NumIn(); i++ {
		args[i] = makeValue(typ.In(i), values, 0)
	}
	out := m.Call(args)
	var err error
	for _, o := range out {
		switch {
		case o.Type() == reflect.TypeFor[error]():
			if !o.IsNil() {
				err = o.Interface().(error)
			}
		case o.Kind() == reflect.Func && o.Type().NumIn() == 1 && o.Type().In(0).Kind() == reflect.Func:
			// An iterator (iter.Seq2[*T, error]): take its first element.
			yield := reflect.MakeFunc(o.Type().In(0), func(in []reflect.Value) []reflect.Value {
				if last := in[len(in)-1]; last.Type() == reflect.TypeFor[error]() && !last.IsNil() {
					err = last.Interface().(error)
				}
				return []reflect.Value{reflect.ValueOf(false)}
			})
			o.Call([]reflect.Value{yield})
		}
	}
	return err
}

// makeValue makes a value of typ: one from values of that type, else a
// non-zero one of its kind; options (a pointer to a type named …Options)
// stay nil, so the call sends what the server takes by default.
func makeValue(typ reflect.Type, values []any, depth int) reflect.Value {
	for _, v := range values {
		if rv := reflect.ValueOf(v); rv.Type() == typ || typ.Kind() == reflect.Interface && rv.Type().Implements(typ) {
			out := reflect.New(typ).Elem()
			out.Set(rv)
			return out
		}
	}
	v := reflect.New(typ).Elem()
	if depth > 3 {
		return v
	}
	switch typ.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Pointer:
		if depth == 0 && strings.HasSuffix(typ.Elem().Name(), "Options") {
			return v
		}
		p := reflect.New(typ.Elem())
		p.Elem().Set(makeValue(typ.Elem(), values, depth+1))
		v.Set(p)
	case reflect.Struct:
		for i := range typ.NumField() {
			if f := typ.Field(i); f.IsExported() && !f.Anonymous {
				v.Field(i).Set(makeValue(f.Type, values, depth+1))
			}
		}
	case reflect.Slice:
		v.Set(reflect.Append(reflect.MakeSlice(typ, 0, 1), makeValue(typ.Elem(), values, depth+1)))
	case reflect.Map:
		m := reflect.MakeMap(typ)
		m.SetMapIndex(makeValue(typ.Key(), values, depth+1), makeValue(typ.Elem(), values, depth+1))
		v.Set(m)
	}
	return v
}

// checkDocs reads the client package's doc comments: each method the
// tables name has, for each table, a paragraph "<Label>: …" whose links
// are exactly its rows' endpoints, each to the row's docs.
func checkDocs(t *testing.T, tables []*apitable.Table, rows map[string][]row, dir string) {
	t.Helper()
	docs, err := methodDocs(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(rows))
	for m := range rows {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		text, ok := docs[m]
		if !ok {
			continue // Check reported the missing method
		}
		byTable := map[*apitable.Table][]apitable.Endpoint{}
		var order []*apitable.Table
		for _, r := range rows[m] {
			if _, ok := byTable[r.t]; !ok {
				order = append(order, r.t)
			}
			byTable[r.t] = append(byTable[r.t], r.e)
		}
		found := endpointLinks(text, tables)
		for _, tb := range order {
			want := map[string]string{}
			for _, e := range byTable[tb] {
				want[e.Endpoint()] = e.Docs
			}
			got, ok := found[tb.Label]
			if ok && mapsEqual(got, want) {
				continue
			}
			t.Errorf("the doc comment of Client.%s must name its endpoints in a paragraph of their own, as\n%s", m, suggest(tb, byTable[tb]))
		}
		for label := range found {
			if !slices.ContainsFunc(order, func(tb *apitable.Table) bool { return tb.Label == label }) {
				t.Errorf("the doc comment of Client.%s names %s endpoints %v, which its table rows do not", m, label, found[label])
			}
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// suggest writes the lines a doc comment needs: the endpoints as links,
// or as plain text for a table that links to no docs.
func suggest(tb *apitable.Table, es []apitable.Endpoint) string {
	linked := tb.DocsPrefix != ""
	var b strings.Builder
	b.WriteString("\t//\n\t// " + tb.Label + ": ")
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		if linked {
			b.WriteString("[" + e.Endpoint() + "]")
		} else {
			b.WriteString(e.Endpoint())
		}
	}
	b.WriteString("\n")
	if linked {
		b.WriteString("\t//\n")
		for _, e := range es {
			b.WriteString("\t// [" + e.Endpoint() + "]: " + e.Docs + "\n")
		}
	}
	return b.String()
}

// endpointLinks reads a doc comment's paragraphs that start "<Label>: ",
// for the labels of the tables: for each label, the links they hold, by
// text.
func endpointLinks(text string, tables []*apitable.Table) map[string]map[string]string {
	var p comment.Parser
	d := p.Parse(text)
	out := map[string]map[string]string{}
	for _, b := range d.Content {
		para, ok := b.(*comment.Paragraph)
		if !ok || len(para.Text) == 0 {
			continue
		}
		plain, ok := para.Text[0].(comment.Plain)
		if !ok {
			continue
		}
		label, _, ok := strings.Cut(string(plain), ": ")
		if !ok || !slices.ContainsFunc(tables, func(tb *apitable.Table) bool { return tb.Label == label }) {
			continue
		}
		links := out[label]
		if links == nil {
			links = map[string]string{}
			out[label] = links
		}
		tb := tables[slices.IndexFunc(tables, func(tb *apitable.Table) bool { return tb.Label == label })]
		if tb.DocsPrefix == "" {
			// A table that links to no docs: its endpoints are named as
			// plain text, each with "" for its link, as its rows have.
			for _, e := range plainEndpoints(plainText(para.Text), tb) {
				links[e] = ""
			}
			continue
		}
		for _, x := range para.Text {
			if l, ok := x.(*comment.Link); ok {
				links[plainText(l.Text)] = l.URL
			}
		}
	}
	return out
}

// plainEndpoints returns the endpoints of tb that text names as plain
// text: "POST /invoices" where it is not the start of a longer path
// ("POST /invoices/{id}/validate").
func plainEndpoints(text string, tb *apitable.Table) []string {
	var out []string
	for _, e := range tb.Endpoints {
		name := e.Endpoint()
		for rest := text; ; {
			i := strings.Index(rest, name)
			if i < 0 {
				break
			}
			after := rest[i+len(name):]
			if after == "" || !strings.ContainsAny(after[:1], "/{}.-_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") {
				out = append(out, name)
				break
			}
			rest = after
		}
	}
	return out
}

func plainText(ts []comment.Text) string {
	var b strings.Builder
	for _, t := range ts {
		if p, ok := t.(comment.Plain); ok {
			b.WriteString(string(p))
		}
	}
	return b.String()
}

// methodDocs returns the doc comment of each method of type Client in the
// package in dir, by name.
func methodDocs(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue // another platform's
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "x", doc.PreserveAST)
	if err != nil {
		return nil, fmt.Errorf("reading the package's docs: %w", err)
	}
	out := map[string]string{}
	for _, typ := range pkg.Types {
		if typ.Name != "Client" {
			continue
		}
		for _, m := range typ.Methods {
			out[m.Name] = m.Doc
		}
	}
	return out, nil
}
