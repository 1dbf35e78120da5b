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

// The protojson dialect: a writer of protoc-gen-go messages, as protojson
// writes them with UseProtoNames.

type pkind int

const (
	pString pkind = iota
	pBytes
	pBool
	pInt32  // int32, sint32, sfixed32: unquoted
	pUint32 // uint32, fixed32: unquoted
	pInt64  // int64, sint64, sfixed64: quoted
	pUint64 // uint64, fixed64: quoted
	pEnum
	pMessage
	pTimestamp
)

type pfield struct {
	goName, name string
	number       int
	kind         pkind
	typeName     string // pEnum, pMessage: the Go type's name in the proto package
	list         bool
	key, val     *pfield // a map's
	descKind     string  // protoreflect's Kind().String() of the field (or a map's value)
}

type protoGen struct {
	p       *pkg
	alias   string // the proto package's name in the output
	path    string
	queue   []string
	seen    map[string]bool
	fields  map[string][]pfield
	writer  string
	cached  map[string]bool
	g       *gen
	mapFns  []string
	mapDone map[string]bool
}

// runProto writes out in dir: the writer of the roots (and what they
// reach) of the protoc-gen-go package in protoDir.
func runProto(protoDir string, roots, cached []string, writer, dir, out string) error {
	p, err := parseDir(protoDir)
	if err != nil {
		return err
	}
	path, err := importPath(protoDir)
	if err != nil {
		return err
	}
	here, err := parseDir(dir, out)
	if err != nil {
		return err
	}
	pg := &protoGen{p: p, alias: p.name, path: path, seen: map[string]bool{}, fields: map[string][]pfield{},
		writer: writer, cached: map[string]bool{}, mapDone: map[string]bool{}}
	for _, c := range cached {
		pg.cached[c] = true
	}
	for _, r := range append(slices.Clone(roots), cached...) {
		if err := pg.message(r); err != nil {
			return err
		}
	}
	for i := 0; i < len(pg.queue); i++ {
		name := pg.queue[i]
		fs, err := pg.messageFields(name)
		if err != nil {
			return err
		}
		pg.fields[name] = fs
	}
	for c := range pg.cached {
		if !pg.seen[c] {
			return fmt.Errorf("-cache %s: not a message the roots reach", c)
		}
	}
	names := slices.Clone(pg.queue)
	slices.Sort(names)

	g := &gen{imports: map[string]bool{path: true, "github.com/apitwin/apitwin/internal/jsonw": true}, dst: "w.B"}
	pg.g = g
	g.printf("// %s writes messages of package %s as protojson writes them with\n", writer, p.name)
	g.printf("// UseProtoNames; where it would write otherwise, it sets Bad.\n")
	g.printf("type %s struct {\n\tjsonw.Proto\n", writer)
	for _, c := range sortedKeys(pg.cached) {
		g.printf("\t// cached%s, when set, gives a message's JSON written before, or nil.\n", c)
		g.printf("\tcached%s func(*%s.%s) []byte\n", c, pg.alias, c)
	}
	g.printf("}\n\n")
	for _, name := range names {
		pg.writeMessage(name)
	}
	for i := 0; i < len(pg.mapFns); i++ {
		g.buf.WriteString(pg.mapFns[i])
	}
	pg.writeCurrent(names, out)

	if _, clash := here.types[writer]; clash {
		return fmt.Errorf("-writer %s: the package declares it already", writer)
	}
	src, err := g.file(here.name, cmdline())
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, out), src)
}

func sortedKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// message notes a message type to write.
func (pg *protoGen) message(name string) error {
	ts := pg.p.types[name]
	if ts == nil {
		return fmt.Errorf("message %s: not declared in %s", name, pg.path)
	}
	if _, ok := ts.Type.(*ast.StructType); !ok {
		return fmt.Errorf("message %s: not a struct", name)
	}
	if !pg.seen[name] {
		pg.seen[name] = true
		pg.queue = append(pg.queue, name)
	}
	return nil
}

// messageFields reads a message's fields from its struct tags.
func (pg *protoGen) messageFields(name string) ([]pfield, error) {
	st := pg.p.types[name].Type.(*ast.StructType)
	var fs []pfield
	for _, f := range st.Fields.List {
		if f.Tag == nil || len(f.Names) != 1 {
			continue
		}
		raw, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			return nil, err
		}
		tag := reflect.StructTag(raw)
		where := name + "." + f.Names[0].Name
		if _, ok := tag.Lookup("protobuf_oneof"); ok {
			return nil, fmt.Errorf("%s: oneofs are not supported", where)
		}
		pt, ok := tag.Lookup("protobuf")
		if !ok {
			continue // the message's own state
		}
		pf, err := pg.field(f.Type, pt, where)
		if err != nil {
			return nil, err
		}
		pf.goName = f.Names[0].Name
		if m, ok := f.Type.(*ast.MapType); ok {
			pf.key, err = pg.field(m.Key, tag.Get("protobuf_key"), where+" key")
			if err != nil {
				return nil, err
			}
			if pf.key.kind != pString {
				return nil, fmt.Errorf("%s: only maps with string keys are supported", where)
			}
			pf.val, err = pg.field(m.Value, tag.Get("protobuf_val"), where+" value")
			if err != nil {
				return nil, err
			}
			pf.kind, pf.descKind = pMessage, "message"
		} else if pf.list {
			arr, ok := f.Type.(*ast.ArrayType)
			if !ok {
				return nil, fmt.Errorf("%s: repeated field of type %T", where, f.Type)
			}
			elem, err := pg.field(arr.Elt, pt, where)
			if err != nil {
				return nil, err
			}
			elem.list = true
			elem.goName, elem.name, elem.number = pf.goName, pf.name, pf.number
			pf = elem
		}
		fs = append(fs, *pf)
	}
	return fs, nil
}

// field reads one field (or a map's key or value, or a list's element)
// from its Go type e and its protobuf tag.
func (pg *protoGen) field(e ast.Expr, tag, where string) (*pfield, error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 3 {
		return nil, fmt.Errorf("%s: protobuf tag %q", where, tag)
	}
	pf := &pfield{}
	wire := parts[0]
	pf.number, _ = strconv.Atoi(parts[1])
	if parts[2] == "rep" {
		if _, isMap := e.(*ast.MapType); !isMap {
			if arr, ok := e.(*ast.ArrayType); ok {
				if id, ok := arr.Elt.(*ast.Ident); !ok || id.Name != "byte" {
					pf.list = true
					return pf, pg.nameOf(pf, parts)
				}
			}
		}
	}
	enum := ""
	for _, p := range parts[3:] {
		if v, ok := strings.CutPrefix(p, "enum="); ok {
			enum = v
		}
	}
	if err := pg.nameOf(pf, parts); err != nil {
		return nil, err
	}
	switch e := e.(type) {
	case *ast.Ident:
		switch {
		case enum != "":
			pf.kind, pf.typeName, pf.descKind = pEnum, e.Name, "enum"
		case e.Name == "string":
			pf.kind, pf.descKind = pString, "string"
		case e.Name == "bool":
			pf.kind, pf.descKind = pBool, "bool"
		case e.Name == "int32":
			pf.kind, pf.descKind = pInt32, map[string]string{"varint": "int32", "zigzag32": "sint32", "fixed32": "sfixed32"}[wire]
		case e.Name == "uint32":
			pf.kind, pf.descKind = pUint32, map[string]string{"varint": "uint32", "fixed32": "fixed32"}[wire]
		case e.Name == "int64":
			pf.kind, pf.descKind = pInt64, map[string]string{"varint": "int64", "zigzag64": "sint64", "fixed64": "sfixed64"}[wire]
		case e.Name == "uint64":
			pf.kind, pf.descKind = pUint64, map[string]string{"varint": "uint64", "fixed64": "fixed64"}[wire]
		default:
			return nil, fmt.Errorf("%s: type %s is not supported", where, e.Name)
		}
		if pf.descKind == "" {
			return nil, fmt.Errorf("%s: wire type %s of %s", where, wire, e.Name)
		}
	case *ast.ArrayType:
		if id, ok := e.Elt.(*ast.Ident); ok && id.Name == "byte" && e.Len == nil {
			pf.kind, pf.descKind = pBytes, "bytes"
			break
		}
		return nil, fmt.Errorf("%s: type is not supported", where)
	case *ast.StarExpr:
		switch x := e.X.(type) {
		case *ast.Ident:
			if err := pg.message(x.Name); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			pf.kind, pf.typeName, pf.descKind = pMessage, x.Name, "message"
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name == "timestamppb" && x.Sel.Name == "Timestamp" {
				pf.kind, pf.descKind = pTimestamp, "message"
				break
			}
			return nil, fmt.Errorf("%s: message type is not supported", where)
		default:
			return nil, fmt.Errorf("%s: type is not supported", where)
		}
	case *ast.MapType:
		// The caller reads key and value.
	default:
		return nil, fmt.Errorf("%s: type %T is not supported", where, e)
	}
	return pf, nil
}

func (pg *protoGen) nameOf(pf *pfield, parts []string) error {
	for _, p := range parts[3:] {
		if v, ok := strings.CutPrefix(p, "name="); ok {
			pf.name = v
		}
	}
	if pf.name == "" || !plainKey(pf.name) {
		return fmt.Errorf("field %d: name %q", pf.number, pf.name)
	}
	return nil
}

// present is the condition under which protojson writes field f of m.
func (f *pfield) present(x string) string {
	switch {
	case f.list || f.key != nil:
		return "len(" + x + ") > 0"
	}
	switch f.kind {
	case pString, pBytes:
		return "len(" + x + ") > 0"
	case pBool:
		return x
	case pMessage, pTimestamp:
		return x + " != nil"
	}
	return x + " != 0"
}

func (pg *protoGen) writeMessage(name string) {
	g := pg.g
	fs := pg.fields[name]
	g.printf("// write%s writes a %s.\n", name, name)
	g.printf("func (w *%s) write%s(m *%s.%s) {\n", pg.writer, name, pg.alias, name)
	if pg.cached[name] {
		g.printf("if w.cached%s != nil {\nif p := w.cached%s(m); p != nil {\nw.B = append(w.B, p...)\nreturn\n}\n}\n", name, name)
	}
	g.raw("{")
	if len(fs) > 1 {
		g.printf("more := false\n")
	}
	for i, f := range fs {
		x := "m." + f.goName
		g.printf("if %s {\n", f.present(x))
		if i > 0 {
			g.printf("if more {\nw.Comma()\n}\n")
		}
		if i < len(fs)-1 {
			g.printf("more = true\n")
		}
		g.raw(`"` + f.name + `":`)
		switch {
		case f.key != nil:
			g.printf("w.%s(%s)\n", pg.mapFn(name, &f), x)
		case f.list:
			g.raw("[")
			g.printf("for i, e := range %s {\nif i > 0 {\nw.Comma()\n}\n", x)
			pg.writeValue(&f, "e", true)
			g.printf("}\n")
			g.raw("]")
		default:
			pg.writeValue(&f, x, false)
		}
		g.printf("}\n")
	}
	g.raw("}")
	g.flush()
	g.printf("}\n\n")
}

// writeValue writes x, a single value of field f; mayBeNil for a list's
// element or a map's value, where protojson writes a nil message as an
// empty one.
func (pg *protoGen) writeValue(f *pfield, x string, mayBeNil bool) {
	g := pg.g
	switch f.kind {
	case pString:
		g.printf("w.String(%s)\n", x)
	case pBytes:
		g.printf("w.Bytes(%s)\n", x)
	case pBool:
		g.printf("w.Bool(%s)\n", x)
	case pInt32:
		g.printf("w.Int(int64(%s))\n", x)
	case pUint32:
		g.printf("w.Uint(uint64(%s))\n", x)
	case pInt64:
		g.printf("w.Int64(%s)\n", x)
	case pUint64:
		g.printf("w.Uint64(%s)\n", x)
	case pEnum:
		g.printf("if n, ok := %s.%s_name[int32(%s)]; ok {\nw.String(n)\n} else {\nw.Int(int64(%s))\n}\n", pg.alias, f.typeName, x, x)
	case pTimestamp:
		// A nil one reads as the zero time, as protojson reads it.
		g.printf("w.Timestamp(%s.GetSeconds(), %s.GetNanos())\n", x, x)
	case pMessage:
		if mayBeNil {
			g.printf("if %s == nil {\n", x)
			g.raw("{}")
			g.printf("} else {\nw.write%s(%s)\n}\n", f.typeName, x)
			break
		}
		g.printf("w.write%s(%s)\n", f.typeName, x)
	}
}

// mapFn is the name of the method writing map field f of message msg,
// written once.
func (pg *protoGen) mapFn(msg string, f *pfield) string {
	fn := "write" + msg + f.goName
	if pg.mapDone[fn] {
		return fn
	}
	pg.mapDone[fn] = true
	valType := ""
	switch f.val.kind {
	case pMessage:
		valType = "*" + pg.alias + "." + f.val.typeName
	case pTimestamp:
		valType = "*timestamppb.Timestamp"
		pg.g.imports["google.golang.org/protobuf/types/known/timestamppb"] = true
	case pString:
		valType = "string"
	case pBytes:
		valType = "[]byte"
	case pBool:
		valType = "bool"
	case pInt32:
		valType = "int32"
	case pUint32:
		valType = "uint32"
	case pInt64:
		valType = "int64"
	case pUint64:
		valType = "uint64"
	case pEnum:
		valType = pg.alias + "." + f.val.typeName
	}
	outer := pg.g
	g := &gen{imports: outer.imports, dst: "w.B"}
	pg.g = g
	g.imports["slices"] = true
	g.printf("// %s writes %s.%s, its keys sorted.\n", fn, msg, f.goName)
	g.printf("func (w *%s) %s(m map[string]%s) {\n", pg.writer, fn, valType)
	g.raw("{")
	g.printf("if len(m) == 1 {\nfor k, v := range m {\nw.String(k)\n")
	g.raw(":")
	pg.writeValue(f.val, "v", true)
	g.printf("}\n} else {\n")
	g.printf("keys := w.TakeKeys()\nfor k := range m {\nkeys = append(keys, k)\n}\nslices.Sort(keys)\n")
	g.printf("for i, k := range keys {\nif i > 0 {\nw.Comma()\n}\nw.String(k)\n")
	g.raw(":")
	pg.writeValue(f.val, "m[k]", true)
	g.printf("}\nw.GiveKeys(keys)\n}\n")
	g.raw("}")
	g.flush()
	g.printf("}\n\n")
	pg.g = outer
	pg.mapFns = append(pg.mapFns, g.buf.String())
	return fn
}

// writeCurrent writes <writer>Current, which checks that the compiled
// messages have the fields the writer knows.
func (pg *protoGen) writeCurrent(names []string, out string) {
	g := pg.g
	g.imports["google.golang.org/protobuf/reflect/protoreflect"] = true
	g.imports["strconv"] = true
	g.printf("// %sCurrent reports whether the compiled messages have exactly the\n", pg.writer)
	g.printf("// fields %s was generated for: false (protojson then answers)\n", pg.writer)
	g.printf("// when %s is older than the messages' .pb.go.\n", out)
	g.printf("func %sCurrent() bool {\n", pg.writer)
	g.printf("for _, m := range []struct {\nd protoreflect.MessageDescriptor\nfields string\n}{\n")
	for _, name := range names {
		var desc []string
		for _, f := range pg.fields[name] {
			d := strconv.Itoa(f.number) + " " + f.name + " " + f.descKind
			switch {
			case f.key != nil:
				d += " map"
			case f.list:
				d += " list"
			}
			desc = append(desc, d)
		}
		g.printf("{(&%s.%s{}).ProtoReflect().Descriptor(), %q},\n", pg.alias, name, strings.Join(desc, ","))
	}
	g.printf("} {\nvar got []byte\nfs := m.d.Fields()\nfor i := range fs.Len() {\nf := fs.Get(i)\n")
	g.printf("if i > 0 {\ngot = append(got, ',')\n}\n")
	g.printf("got = strconv.AppendInt(got, int64(f.Number()), 10)\n")
	g.printf("got = append(append(append(append(got, ' '), f.Name()...), ' '), f.Kind().String()...)\n")
	g.printf("switch {\ncase f.IsMap():\ngot = append(got, \" map\"...)\ncase f.IsList():\ngot = append(got, \" list\"...)\n}\n")
	g.printf("}\nif string(got) != m.fields {\nreturn false\n}\n}\nreturn true\n}\n")
}
