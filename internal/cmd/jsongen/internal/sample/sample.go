// Package sample holds types that exercise every form internal/cmd/jsongen
// writes, so that its generated code (json_gen.go) is compiled and held to
// encoding/json (json_gen_test.go) by go test.
package sample

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/internal/jsonw"
)

//go:generate go run github.com/apitwin/apitwin/internal/cmd/jsongen -type record,allOptional,lateSure,member

// level is a named basic type.
type level int

// label is a named string type.
type label string

// stamp writes itself.
type stamp time.Time

func (s stamp) appendJSON(b []byte) []byte { return jsonw.AppendTimeMillis(b, time.Time(s)) }

// MarshalJSON is what encoding/json calls.
func (s stamp) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

// count writes itself, as a string, and is empty when zero.
type count int64

func (c count) appendJSON(b []byte) []byte {
	return append(strconv.AppendInt(append(b, '"'), int64(c), 10), '"')
}

// MarshalJSON is what encoding/json calls.
func (c count) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

type record struct {
	ID       int64             `json:"id"`
	Name     string            `json:"name"`
	Label    label             `json:"label"`
	Level    level             `json:"level"`
	Small    int8              `json:"small"`
	Unsigned uint32            `json:"unsigned"`
	Flag     bool              `json:"flag"`
	Note     *string           `json:"note"`
	When     stamp             `json:"when"`
	Maybe    *stamp            `json:"maybe"`
	Count    count             `json:"count,omitempty"`
	Owner    *person           `json:"owner"`
	People   []*person         `json:"people"`
	Values   []person          `json:"values"`
	Tags     []string          `json:"tags"`
	Extra    map[string]string `json:"extra"`
	ByName   map[string]person `json:"by_name"`
	Raw      json.RawMessage   `json:"raw"`
	Empty    struct{}          `json:"empty"`
	Refs     struct {
		Short string `json:"short"`
		Full  string `json:"full,omitempty"`
	} `json:"refs"`
	Opt     *person `json:"opt,omitempty"`
	OptTags []label `json:"opt_tags,omitempty"`
	OptFlag bool    `json:"opt_flag,omitempty"`
	Skipped string  `json:"-"`
	//lint:ignore SA5008 the tag names the field "-", a case encoding/json has and the generator must match
	Dash     string `json:"-,"`
	Untagged int
	hidden   string
}

type person struct {
	Name  string `json:"name"`
	Admin bool   `json:"admin,omitempty"`
}

// member embeds person: its fields come in its place.
type member struct {
	Level level `json:"level"`
	person
	Since stamp `json:"since"`
}

// allOptional may write no field at all.
type allOptional struct {
	A string  `json:"a,omitempty"`
	B *int    `json:"b,omitempty"`
	C []int64 `json:"c,omitempty"`
}

// lateSure has optional fields before its first sure one, and after.
type lateSure struct {
	A level  `json:"a,omitempty"`
	B string `json:"b,omitempty"`
	C bool   `json:"c"`
	D string `json:"d,omitempty"`
	E uint   `json:"e"`
}

var _ = record{}.hidden
