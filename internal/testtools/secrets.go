package testtools

import (
	"bytes"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

// ShowsNoSecret fails tb when printing v shows any of secrets: as
// PrintsNoSecret prints it, and, when v points to a struct, the struct
// printed by value too. That is how a String method on the pointer is
// bypassed (fmt.Printf("%+v", *client), or a client kept by value in a
// field): fmt then prints the fields as they are, without their methods,
// and with %s also what a pointer field points to (fmt's bad-verb
// report). So a secret may be neither a field's value nor one pointer
// away; a closure, which prints as an address, holds it safely.
func ShowsNoSecret(tb testing.TB, v any, secrets ...string) {
	tb.Helper()
	PrintsNoSecret(tb, v, secrets...)
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct {
		PrintsNoSecret(tb, rv.Elem().Interface(), secrets...) // a copy, made where vet's copylocks cannot object
	}
}

// PrintsNoSecret fails tb when printing v with fmt's %v, %+v, %#v and %s,
// or through slog's text and JSON handlers, shows any of secrets, as text
// or as bytes (decimal, hex). It is ShowsNoSecret without the copy by
// value, for a type that holds a lock (which vet's copylocks keeps
// programs from copying) and a map (which fmt prints whole at any depth).
func PrintsNoSecret(tb testing.TB, v any, secrets ...string) {
	tb.Helper()
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		outs = append(outs, fmt.Sprintf(verb, v))
	}
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
		slog.New(h).Info("printing", "value", v)
	}
	outs = append(outs, buf.String())
	var forms []string
	for _, s := range secrets {
		if s != "" {
			b := fmt.Sprint([]byte(s)) // "[104 105]"
			forms = append(forms, s, b[1:len(b)-1], fmt.Sprintf("%x", s))
		}
	}
	for _, out := range outs {
		for _, s := range forms {
			if strings.Contains(out, s) {
				tb.Errorf("%T printed a secret: %s", v, out)
			}
		}
	}
}
