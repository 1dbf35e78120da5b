package erpfake

import (
	"math/big"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/internal/jsonw"
)

// jsonWriter writes the fake's answers straight from the state into one
// buffer: each record type has a write function that appends its fields
// in the ERP's order, numbers in the deployment's style (see numbers), so
// a list costs one growing buffer however many records it holds, not a
// struct, a map and a formatted string per field of every record. What
// it writes is byte for byte what encoding/json wrote from the structs
// the answers used to be built from (TestAnswersGolden holds it).
//
// A jsonWriter is a value, passed and given back as strconv's Append
// functions pass a slice (w = w.raw(…)): kept in a local variable, its
// appends store no pointer in the heap, which would cost a GC write
// barrier each while the collector runs.
type jsonWriter struct {
	b      []byte
	native bool
}

// raw appends s as it is: the keys and punctuation between values.
func (w jsonWriter) raw(s string) jsonWriter {
	w.b = append(w.b, s...)
	return w
}

// str appends s as a JSON string, escaped as encoding/json escapes it.
func (w jsonWriter) str(s string) jsonWriter {
	w.b = jsonw.AppendString(w.b, s)
	return w
}

// id appends an id or another integer: "12" or 12.
func (w jsonWriter) id(v int64) jsonWriter {
	if w.native {
		w.b = strconv.AppendInt(w.b, v, 10)
		return w
	}
	w.b = append(strconv.AppendInt(append(w.b, '"'), v, 10), '"')
	return w
}

// flag appends a boolean as the ERP's 1 or 0, in the style of id.
func (w jsonWriter) flag(v bool) jsonWriter {
	switch {
	case w.native && v:
		return w.raw("1")
	case w.native:
		return w.raw("0")
	case v:
		return w.raw(`"1"`)
	}
	return w.raw(`"0"`)
}

// dec appends an amount (nil is 0): "100.00000000" (a DECIMAL(24,8)
// column as text) or 100.0 (a PHP float).
func (w jsonWriter) dec(v *big.Rat) jsonWriter {
	if x, ok := fixed8(v); ok {
		return w.dec8(x)
	}
	return w.decimal(v.FloatString(8))
}

// dec8 is dec for an amount in counts of 1e-8 (see fixed8).
func (w jsonWriter) dec8(x int64) jsonWriter {
	if !w.native {
		w.b = append(appendFixed8(append(w.b, '"'), x), '"')
		return w
	}
	start := len(w.b)
	w.b = appendFixed8(w.b, x)
	return w.trimZeros(start)
}

// decimal is dec for an amount written with 8 decimals.
func (w jsonWriter) decimal(s string) jsonWriter {
	if !w.native {
		w.b = append(append(append(w.b, '"'), s...), '"')
		return w
	}
	start := len(w.b)
	w.b = append(w.b, s...)
	return w.trimZeros(start)
}

// trimZeros drops the zeros that end the decimals written from start on,
// as PHP writes a float, keeping one after the point: 100.0, 12.5.
func (w jsonWriter) trimZeros(start int) jsonWriter {
	end := len(w.b)
	for end > start && w.b[end-1] == '0' {
		end--
	}
	w.b = w.b[:end]
	if end > start && w.b[end-1] == '.' {
		w.b = append(w.b, '0')
	}
	return w
}

// time appends Unix seconds, or "" (strings) / null (native) when unset.
func (w jsonWriter) time(t time.Time) jsonWriter {
	switch {
	case !t.IsZero():
		w.b = strconv.AppendInt(w.b, t.Unix(), 10)
		return w
	case w.native:
		return w.raw("null")
	}
	return w.raw(`""`)
}

// optID appends the id of a record that may be missing (a foreign key
// unset): null then.
func (w jsonWriter) optID(id int64, present bool) jsonWriter {
	if !present {
		return w.raw("null")
	}
	return w.id(id)
}
