package visibility

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Type is the type of a search attribute. It decides which operators and
// literals a query may use with the attribute, and which [Kind] of [Value]
// a record must hold for it.
type Type uint8

// The search-attribute types. The Kind a record's Value must have is
// given for each; any other kind counts as missing.
const (
	TypeUnspecified Type = iota
	TypeKeyword          // KindString; exact, case-sensitive
	TypeText             // KindString; tokenised, see the package doc
	TypeInt              // KindInt
	TypeDouble           // KindFloat or KindInt
	TypeBool             // KindBool
	TypeDatetime         // KindTime
	TypeKeywordList      // KindStrings, or KindString as a list of one
)

var typeNames = [...]string{"Unspecified", "Keyword", "Text", "Int", "Double", "Bool", "Datetime", "KeywordList"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// ParseType reads a type's name ("Keyword", "keywordlist", …), ignoring
// case. "Unspecified" is not a type one can register, and is an error.
func ParseType(s string) (Type, error) {
	for i, n := range typeNames[1:] {
		if strings.EqualFold(s, n) {
			return Type(i + 1), nil
		}
	}
	return TypeUnspecified, fmt.Errorf("visibility: unknown search attribute type %q", s)
}

// The system search attributes. Every [Schema] has them; they cannot be
// registered or removed.
const (
	AttrWorkflowID      = "WorkflowId"      // Keyword
	AttrRunID           = "RunId"           // Keyword
	AttrWorkflowType    = "WorkflowType"    // Keyword
	AttrExecutionStatus = "ExecutionStatus" // Keyword, one of the Status values
	AttrTaskQueue       = "TaskQueue"       // Keyword
	AttrStartTime       = "StartTime"       // Datetime
	AttrCloseTime       = "CloseTime"       // Datetime, missing while running
	AttrExecutionTime   = "ExecutionTime"   // Datetime
	// The schedule that started a run and the action's nominal time,
	// set by the service on the runs a schedule starts (Temporal's
	// TemporalScheduledById and TemporalScheduledStartTime).
	AttrScheduledByID      = "ScheduledById"      // Keyword
	AttrScheduledStartTime = "ScheduledStartTime" // Datetime
)

// The values of ExecutionStatus, as a record holds them and a query writes
// them.
const (
	StatusRunning        = "Running"
	StatusCompleted      = "Completed"
	StatusFailed         = "Failed"
	StatusCanceled       = "Canceled"
	StatusTerminated     = "Terminated"
	StatusContinuedAsNew = "ContinuedAsNew"
	StatusTimedOut       = "TimedOut"
)

// ExecutionStatuses returns the values of ExecutionStatus, in the order
// of the Temporal-style enum.
func ExecutionStatuses() []string {
	return []string{StatusRunning, StatusCompleted, StatusFailed, StatusCanceled,
		StatusTerminated, StatusContinuedAsNew, StatusTimedOut}
}

// canonicalStatus returns the status's canonical spelling; s is compared
// ignoring case.
func canonicalStatus(s string) (string, bool) {
	for _, st := range ExecutionStatuses() {
		if strings.EqualFold(s, st) {
			return st, true
		}
	}
	return "", false
}

var systemAttrs = map[string]Type{
	AttrWorkflowID:         TypeKeyword,
	AttrRunID:              TypeKeyword,
	AttrWorkflowType:       TypeKeyword,
	AttrExecutionStatus:    TypeKeyword,
	AttrTaskQueue:          TypeKeyword,
	AttrStartTime:          TypeDatetime,
	AttrCloseTime:          TypeDatetime,
	AttrExecutionTime:      TypeDatetime,
	AttrScheduledByID:      TypeKeyword,
	AttrScheduledStartTime: TypeDatetime,
}

// SystemAttributes returns the system attributes and their types.
func SystemAttributes() map[string]Type { return maps.Clone(systemAttrs) }

// IsSystem reports whether name is a system attribute.
func IsSystem(name string) bool { _, ok := systemAttrs[name]; return ok }

// MaxNameLength bounds a custom attribute's name, in bytes.
const MaxNameLength = 255

// Errors of [Schema.Register]; the returned error wraps one of them.
var (
	ErrInvalidName     = errors.New("visibility: invalid search attribute name")
	ErrInvalidType     = errors.New("visibility: invalid search attribute type")
	ErrSystemAttribute = errors.New("visibility: a system search attribute")
	ErrTypeConflict    = errors.New("visibility: search attribute already registered with another type")
)

// Schema is the set of attributes queries are parsed against: the system
// attributes and the custom ones registered on it (one Schema per
// namespace, in the fake). It is safe for concurrent use; a parsed
// [Query] keeps the types it was parsed with and does not see later
// changes. The zero Schema and a nil *Schema hold the system attributes
// only.
type Schema struct {
	mu      sync.RWMutex
	custom  map[string]Type
	version uint64 // counts the changes to custom
}

// Version changes whenever an attribute is registered or removed: a query
// parsed at one version reads the same at any later call of the same
// version, so a caller may keep parsed queries keyed by it.
func (s *Schema) Version() uint64 {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// NewSchema returns a schema with the system attributes and no custom ones.
func NewSchema() *Schema { return &Schema{} }

// Register adds a custom attribute. Registering a name again with the
// same type does nothing; with another type it is ErrTypeConflict. Names
// are case-sensitive, non-empty, valid UTF-8 of at most MaxNameLength
// bytes with no control characters, and not a system attribute's name.
func (s *Schema) Register(name string, t Type) error {
	if t <= TypeUnspecified || t > TypeKeywordList {
		return fmt.Errorf("%w: %v for %q", ErrInvalidType, t, name)
	}
	if err := checkName(name); err != nil {
		return err
	}
	if IsSystem(name) {
		return fmt.Errorf("%w: %q", ErrSystemAttribute, name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.custom[name]; ok {
		if old != t {
			return fmt.Errorf("%w: %q is %v, not %v", ErrTypeConflict, name, old, t)
		}
		return nil
	}
	if s.custom == nil {
		s.custom = make(map[string]Type)
	}
	s.custom[name] = t
	s.version++
	return nil
}

// Remove drops a custom attribute and reports whether it was there.
// System attributes are never removed.
func (s *Schema) Remove(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.custom[name]
	delete(s.custom, name)
	if ok {
		s.version++
	}
	return ok
}

// Lookup returns the type of a system or custom attribute.
func (s *Schema) Lookup(name string) (Type, bool) {
	if t, ok := systemAttrs[name]; ok {
		return t, true
	}
	if s == nil {
		return TypeUnspecified, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.custom[name]
	return t, ok
}

// Custom returns a copy of the custom attributes and their types.
func (s *Schema) Custom() map[string]Type {
	if s == nil {
		return map[string]Type{}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	m := maps.Clone(s.custom)
	if m == nil {
		m = map[string]Type{}
	}
	return m
}

// suggest finds an attribute whose name equals name ignoring case,
// preferring a system attribute, then the first custom one in byte order.
func (s *Schema) suggest(name string) string {
	for _, n := range slices.Sorted(maps.Keys(systemAttrs)) {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	for _, n := range slices.Sorted(maps.Keys(s.Custom())) {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}

func checkName(name string) error {
	if name == "" || len(name) > MaxNameLength || !utf8.ValidString(name) {
		return fmt.Errorf("%w: %q", ErrInvalidName, name)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: %q has a control character", ErrInvalidName, name)
		}
	}
	return nil
}
