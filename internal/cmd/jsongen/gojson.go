package main

import (
	"fmt"
	"go/ast"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The encoding/json dialect: appendJSON methods on the package's own types.

type jkind int

const (
	jString jkind = iota
	jBool
	jInt
	jUint
	jPtr
	jSlice
	jMap
	jStruct // a named struct type of the package: its generated appendJSON
	jAnon   // an anonymous struct, written in place
	jSelf   // a named type that writes itself (appendJSON and MarshalJSON)
	jRaw    // json.RawMessage
)

type jtype struct {
	kind  jkind
	name  string // a named type's name (jStruct, jSelf, or a named basic type)
	elem  *jtype // jPtr, jSlice, jMap
	anon  []jfield
	empty string // jSelf: how its underlying type is empty for omitempty ("" never)
}

type jfield struct {
	goName, key string
	omitempty   bool
	t           *jtype
}

type goGen struct {
	p      *pkg
	queue  []string
	seen   map[string]bool
	fields map[string][]jfield
}

// runGo writes out, and its test beside it, in dir for the roots
// declared there.
func runGo(dir string, roots []string, out string) error {
	p, err := parseDir(dir, out)
	if err != nil {
		return err
	}
	gg := &goGen{p: p, seen: map[string]bool{}, fields: map[string][]jfield{}}
	for _, r := range roots {
		ts := p.types[r]
		if ts == nil {
			return fmt.Errorf("type %s: not declared in package %s", r, p.name)
		}
		if _, ok := ts.Type.(*ast.StructType); !ok || ts.TypeParams != nil {
			return fmt.Errorf("type %s: not a (non-generic) struct type", r)
		}
		gg.enqueue(r)
	}
	for i := 0; i < len(gg.queue); i++ {
		name := gg.queue[i]
		st := p.types[name].Type.(*ast.StructType)
		fs, err := gg.structFields(st, name)
		if err != nil {
			return err
		}
		gg.fields[name] = fs
	}
	names := slices.Clone(gg.queue)
	slices.Sort(names)

	g := &gen{imports: map[string]bool{}, dst: "b"}
	for _, name := range names {
		g.printf("// appendJSON appends v as encoding/json's Marshal writes it.\n")
		g.printf("func (v *%s) appendJSON(b []byte) []byte {\n", name)
		g.writeStruct(gg.fields[name], "v.")
		g.flush()
		g.printf("return b\n}\n\n")
	}
	src, err := g.file(p.name, cmdline())
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, out), src); err != nil {
		return err
	}

	t := &gen{imports: map[string]bool{"testing": true, "github.com/apitwin/apitwin/internal/jsonw/jsonwtest": true}, dst: "b"}
	t.printf("// TestGeneratedJSON holds each generated appendJSON to encoding/json's\n")
	t.printf("// Marshal over random values.\n")
	t.printf("func TestGeneratedJSON(t *testing.T) {\n\tt.Parallel()\n")
	for _, name := range names {
		t.printf("\tt.Run(%q, func(t *testing.T) { jsonwtest.Check(t, (*%s).appendJSON) })\n", name, name)
	}
	t.printf("}\n")
	src, err = t.file(p.name, cmdline())
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, strings.TrimSuffix(out, ".go")+"_test.go"), src)
}

func (gg *goGen) enqueue(name string) {
	if !gg.seen[name] {
		gg.seen[name] = true
		gg.queue = append(gg.queue, name)
	}
}

func (gg *goGen) pos(n ast.Node) string { return gg.p.fset.Position(n.Pos()).String() }

// structFields reads a struct's fields as encoding/json sees them.
func (gg *goGen) structFields(st *ast.StructType, owner string) ([]jfield, error) {
	var fs []jfield
	keys := map[string]bool{}
	add := func(jf jfield, at ast.Node) error {
		if keys[jf.key] {
			return fmt.Errorf("%s: %s: key %q twice", gg.pos(at), owner, jf.key)
		}
		keys[jf.key] = true
		fs = append(fs, jf)
		return nil
	}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			// An embedded struct of the package, untagged: its fields in
			// its place, as encoding/json promotes them.
			id, ok := f.Type.(*ast.Ident)
			var ts *ast.TypeSpec
			if ok {
				ts = gg.p.types[id.Name]
			}
			if !ok || f.Tag != nil || ts == nil {
				return nil, fmt.Errorf("%s: %s: only untagged embedded struct types of the package are supported", gg.pos(f), owner)
			}
			st, isStruct := ts.Type.(*ast.StructType)
			if !isStruct || len(gg.p.methods[id.Name]) > 0 {
				return nil, fmt.Errorf("%s: %s: embedded %s: only structs without methods are supported", gg.pos(f), owner, id.Name)
			}
			inner, err := gg.structFields(st, id.Name)
			if err != nil {
				return nil, err
			}
			for _, jf := range inner {
				if err := add(jf, f); err != nil {
					return nil, err
				}
			}
			continue
		}
		tag := ""
		if f.Tag != nil {
			s, err := strconv.Unquote(f.Tag.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", gg.pos(f), err)
			}
			tag = reflect.StructTag(s).Get("json")
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				continue // encoding/json leaves it out
			}
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = n.Name
			}
			if !plainKey(name) {
				return nil, fmt.Errorf("%s: %s.%s: key %q needs escaping or is not a valid tag name", gg.pos(n), owner, n.Name, name)
			}
			jf := jfield{goName: n.Name, key: name}
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "":
				case "omitempty":
					jf.omitempty = true
				default:
					return nil, fmt.Errorf("%s: %s.%s: tag option %q is not supported", gg.pos(n), owner, n.Name, o)
				}
			}
			t, err := gg.resolve(f.Type, owner+"."+n.Name)
			if err != nil {
				return nil, err
			}
			jf.t = t
			if err := add(jf, n); err != nil {
				return nil, err
			}
		}
	}
	return fs, nil
}

// plainKey is a key written as it is: encoding/json would neither escape
// it nor refuse it as a tag name.
func plainKey(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.ContainsRune("_-.$@#!", c):
		default:
			return false
		}
	}
	return true
}

var basicKinds = map[string]jkind{
	"string": jString, "bool": jBool,
	"int": jInt, "int8": jInt, "int16": jInt, "int32": jInt, "int64": jInt, "rune": jInt,
	"uint": jUint, "uint16": jUint, "uint32": jUint, "uint64": jUint,
}

// resolve is the type expression e, written in field where.
func (gg *goGen) resolve(e ast.Expr, where string) (*jtype, error) {
	switch e := e.(type) {
	case *ast.Ident:
		if k, ok := basicKinds[e.Name]; ok {
			return &jtype{kind: k}, nil
		}
		ts := gg.p.types[e.Name]
		if ts == nil {
			return nil, fmt.Errorf("%s: %s: type %s is not supported", gg.pos(e), where, e.Name)
		}
		if ts.TypeParams != nil {
			return nil, fmt.Errorf("%s: %s: generic type %s is not supported", gg.pos(e), where, e.Name)
		}
		methods := gg.p.methods[e.Name]
		if _, ok := methods["appendJSON"]; ok {
			// MarshalJSON on the value, so that encoding/json calls it
			// whether the field is addressable or not; appendJSON may take
			// a pointer: the generated code calls it on a field, an
			// element or a local, all addressable.
			mptr, hasMarshal := methods["MarshalJSON"]
			if !hasMarshal || mptr {
				return nil, fmt.Errorf("%s: %s: type %s needs MarshalJSON, on the value receiver, beside appendJSON", gg.pos(e), where, e.Name)
			}
			return &jtype{kind: jSelf, name: e.Name, empty: gg.emptiness(ts.Type)}, nil
		}
		for _, m := range []string{"MarshalJSON", "MarshalText"} {
			if _, ok := methods[m]; ok {
				return nil, fmt.Errorf("%s: %s: type %s has %s but no appendJSON", gg.pos(e), where, e.Name, m)
			}
		}
		switch u := ts.Type.(type) {
		case *ast.StructType:
			gg.enqueue(e.Name)
			return &jtype{kind: jStruct, name: e.Name}, nil
		case *ast.Ident:
			if k, ok := basicKinds[u.Name]; ok {
				return &jtype{kind: k, name: e.Name}, nil
			}
		}
		return nil, fmt.Errorf("%s: %s: type %s is not supported", gg.pos(e), where, e.Name)
	case *ast.StarExpr:
		elem, err := gg.resolve(e.X, where)
		if err != nil {
			return nil, err
		}
		if elem.kind == jPtr {
			return nil, fmt.Errorf("%s: %s: pointers to pointers are not supported", gg.pos(e), where)
		}
		return &jtype{kind: jPtr, elem: elem}, nil
	case *ast.ArrayType:
		if e.Len != nil {
			return nil, fmt.Errorf("%s: %s: arrays are not supported", gg.pos(e), where)
		}
		if id, ok := e.Elt.(*ast.Ident); ok && (id.Name == "byte" || id.Name == "uint8") {
			return nil, fmt.Errorf("%s: %s: []byte (base64) is not supported", gg.pos(e), where)
		}
		elem, err := gg.resolve(e.Elt, where)
		if err != nil {
			return nil, err
		}
		return &jtype{kind: jSlice, elem: elem}, nil
	case *ast.MapType:
		if id, ok := e.Key.(*ast.Ident); !ok || id.Name != "string" {
			return nil, fmt.Errorf("%s: %s: only maps with string keys are supported", gg.pos(e), where)
		}
		elem, err := gg.resolve(e.Value, where)
		if err != nil {
			return nil, err
		}
		return &jtype{kind: jMap, elem: elem}, nil
	case *ast.StructType:
		fs, err := gg.structFields(e, where)
		if err != nil {
			return nil, err
		}
		return &jtype{kind: jAnon, anon: fs}, nil
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && x.Name == "json" && e.Sel.Name == "RawMessage" {
			return &jtype{kind: jRaw}, nil
		}
	}
	return nil, fmt.Errorf("%s: %s: type %T is not supported", gg.pos(e), where, e)
}

// emptiness is how a value of the underlying type u is empty for
// omitempty: "zero", "false", "nil", "len", or "" for never (structs).
func (gg *goGen) emptiness(u ast.Expr) string {
	switch u := u.(type) {
	case *ast.Ident:
		switch basicKinds[u.Name] {
		case jString:
			if u.Name == "string" {
				return "len"
			}
		case jBool:
			return "false"
		case jInt, jUint:
			return "zero"
		}
		if ts := gg.p.types[u.Name]; ts != nil {
			return gg.emptiness(ts.Type)
		}
	case *ast.StarExpr:
		return "nil"
	case *ast.ArrayType, *ast.MapType:
		return "len"
	}
	return ""
}

// present is the condition under which omitempty keeps x, or "" when it
// always does.
func present(t *jtype, x string) string {
	switch t.kind {
	case jString, jSlice, jMap, jRaw:
		return "len(" + x + ") != 0"
	case jBool:
		return "bool(" + x + ")"
	case jInt, jUint:
		return x + " != 0"
	case jPtr:
		return x + " != nil"
	case jSelf:
		switch t.empty {
		case "len":
			return "len(" + x + ") != 0"
		case "false":
			return "bool(" + x + ")"
		case "zero":
			return x + " != 0"
		case "nil":
			return x + " != nil"
		}
	}
	return ""
}

// writeStruct writes an object of fields fs, read from prefix (with its
// dot): commas between the fields written, whichever omitempty leaves out.
func (g *gen) writeStruct(fs []jfield, prefix string) {
	g.raw("{")
	// conds[i] is field i's condition; some is whether a field is written
	// for sure by then, which decides how its comma is written.
	conds := make([]string, len(fs))
	needMore := false
	sure := false
	for i, f := range fs {
		if f.omitempty {
			conds[i] = present(f.t, prefix+f.goName)
		}
		if i > 0 && !sure {
			needMore = true // only conditional fields before it
		}
		if conds[i] == "" {
			sure = true
		}
	}
	more := ""
	if needMore {
		more = g.fresh("more")
		g.printf("%s := false\n", more)
	}
	sure = false
	for i, f := range fs {
		x := prefix + f.goName
		if conds[i] != "" {
			g.printf("if %s {\n", conds[i])
		}
		switch {
		case sure:
			g.raw(`,"` + f.key + `":`)
		case i == 0 || more == "":
			g.raw(`"` + f.key + `":`)
		default:
			g.printf("if %s {\n", more)
			g.raw(",")
			g.printf("}\n")
			g.raw(`"` + f.key + `":`)
		}
		g.writeValue(f.t, x, conds[i] != "")
		if conds[i] != "" {
			if more != "" && !sure && i < len(fs)-1 {
				g.printf("%s = true\n", more)
			}
			g.printf("}\n")
		} else {
			sure = true
			if more != "" {
				// From here on every key has its comma: more is read no
				// more.
				more = ""
			}
		}
	}
	g.raw("}")
}

// writeValue appends x, of type t; omitted is whether omitempty checked
// it, so that it is not nil (nor empty).
func (g *gen) writeValue(t *jtype, x string, omitted bool) {
	switch t.kind {
	case jString:
		g.imports["github.com/apitwin/apitwin/internal/jsonw"] = true
		if t.name != "" {
			x = "string(" + x + ")"
		}
		g.printf("b = jsonw.AppendString(b, %s)\n", x)
	case jBool:
		g.imports["strconv"] = true
		g.printf("b = strconv.AppendBool(b, bool(%s))\n", x)
	case jInt:
		g.imports["strconv"] = true
		g.printf("b = strconv.AppendInt(b, int64(%s), 10)\n", x)
	case jUint:
		g.imports["strconv"] = true
		g.printf("b = strconv.AppendUint(b, uint64(%s), 10)\n", x)
	case jStruct, jSelf:
		g.printf("b = %s.appendJSON(b)\n", x)
	case jAnon:
		g.writeStruct(t.anon, x+".")
	case jRaw:
		if omitted {
			g.printf("b = append(b, %s...)\n", x)
			break
		}
		g.printf("if len(%s) == 0 {\n", x)
		g.raw("null")
		g.printf("} else {\nb = append(b, %s...)\n}\n", x)
	case jPtr:
		if !omitted {
			g.printf("if %s == nil {\n", x)
			g.raw("null")
			g.printf("} else {\n")
		}
		switch t.elem.kind {
		case jStruct, jSelf, jAnon:
			g.writeValue(t.elem, x, false)
		default:
			g.writeValue(t.elem, "(*"+x+")", false)
		}
		if !omitted {
			g.printf("}\n")
		}
	case jSlice:
		i := g.fresh("i")
		if !omitted {
			g.printf("if %s == nil {\n", x)
			g.raw("null")
			g.printf("} else {\n")
		}
		g.raw("[")
		g.printf("for %s := range %s {\n", i, x)
		g.printf("if %s > 0 {\n", i)
		g.raw(",")
		g.printf("}\n")
		g.writeValue(t.elem, x+"["+i+"]", false)
		g.printf("}\n")
		g.raw("]")
		if !omitted {
			g.printf("}\n")
		}
	case jMap:
		g.imports["slices"] = true
		g.imports["github.com/apitwin/apitwin/internal/jsonw"] = true
		keys, i, k, e := g.fresh("keys"), g.fresh("i"), g.fresh("k"), g.fresh("e")
		if !omitted {
			g.printf("if %s == nil {\n", x)
			g.raw("null")
			g.printf("} else {\n")
		}
		g.printf("%s := make([]string, 0, len(%s))\n", keys, x)
		g.printf("for %s := range %s {\n%s = append(%s, %s)\n}\n", k, x, keys, keys, k)
		g.printf("slices.Sort(%s)\n", keys)
		g.raw("{")
		g.printf("for %s, %s := range %s {\n", i, k, keys)
		g.printf("if %s > 0 {\n", i)
		g.raw(",")
		g.printf("}\n")
		g.printf("b = jsonw.AppendString(b, %s)\n", k)
		g.raw(":")
		g.printf("%s := %s[%s]\n", e, x, k)
		g.writeValue(t.elem, e, false)
		g.printf("}\n")
		g.raw("}")
		if !omitted {
			g.printf("}\n")
		}
	}
}
