// Package visibility is the query language of the orch fake's List, Scan
// and Count: a SQL-like filter with an optional ORDER BY, parsed against a
// schema of search attributes and evaluated against the fake's
// executions. Temporal's List Filter is the model for its semantics; the
// choices where the spec is silent are written down here.
//
//	schema := visibility.NewSchema()                     // the system attributes
//	_ = schema.Register("CustomerId", visibility.TypeKeyword)
//	q, err := visibility.Parse("ExecutionStatus = 'Running' AND CustomerId STARTS_WITH 'acme-'", schema)
//	// err is a *SyntaxError: the fake answers INVALID_ARGUMENT with its text
//	if q.Match(rec) { … }                                // rec implements Record
//	slices.SortFunc(hits, func(a, b *exec) int { return q.Compare(a, b) })
//
// # Grammar
//
//	query     = [ expr ] [ ORDER BY key { "," key } ]
//	expr      = and { OR and }
//	and       = unary { AND unary }
//	unary     = NOT unary | "(" expr ")" | predicate
//	predicate = attr ( cmp literal
//	                 | [ NOT ] IN "(" literal { "," literal } ")"
//	                 | [ NOT ] BETWEEN literal AND literal
//	                 | [ NOT ] STARTS_WITH literal
//	                 | IS [ NOT ] NULL )
//	cmp       = "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//	key       = attr [ ASC | DESC ]
//	attr      = identifier | "`" name "`"
//	literal   = string | number | TRUE | FALSE
//
// Precedence, tightest first: a predicate, NOT, AND, OR. NOT IN, NOT
// BETWEEN, NOT STARTS_WITH and IS [NOT] NULL are Temporal's too and are
// accepted beyond the list; <> is read as !=. The left side is
// always an attribute and the right side always literals: `'x' =
// WorkflowId` and comparing two attributes are errors.
//
// Keywords (AND, OR, NOT, IN, BETWEEN, STARTS_WITH, IS, NULL, ORDER, BY,
// ASC, DESC, TRUE, FALSE) are read ignoring case. Attribute names are
// case-sensitive; a bare name is [A-Za-z_][A-Za-z0-9_]* and not a keyword,
// anything else (spaces, non-ASCII, a keyword such as `order`) is written
// in backquotes. Blanks are space, tab, CR and LF. An empty or all-blank
// query matches every record; a query may also be only an ORDER BY.
//
// Literals. Strings are in single or double quotes; inside them (and
// inside backquoted names) the escapes are \\ \' \" \` \n \r \t \0, and
// the quote written twice stands for itself, as in SQL; any other
// backslash escape is an error. Numbers are -?digits[.digits][e[+-]digits];
// a number that runs into a letter or a dot (12abc, 1.5.2) is an error.
// Booleans are TRUE and FALSE. Datetimes are strings in RFC 3339 (with
// optional fractional seconds and a Z or ±hh:mm offset), compared as
// instants, so '2024-05-01T12:00:00+02:00' = '2024-05-01T10:00:00Z'.
//
// # Types and operators
//
// Every attribute has a [Type]: the system attributes WorkflowId, RunId,
// WorkflowType, ExecutionStatus and TaskQueue are Keyword; StartTime,
// CloseTime and ExecutionTime are Datetime. Custom attributes are
// registered on the [Schema] with theirs. An unknown attribute, an
// operator the type does not allow, or a literal of the wrong type is an
// error when the query is parsed, never a silent non-match:
//
//	type         literal            operators
//	Keyword      string             = != < <= > >= IN BETWEEN STARTS_WITH
//	Text         string             = !=
//	Int          integer            = != < <= > >= IN BETWEEN
//	Double       number             = != < <= > >= IN BETWEEN
//	Bool         TRUE, FALSE        = !=
//	Datetime     RFC 3339 string    = != < <= > >= IN BETWEEN
//	KeywordList  string             = != IN STARTS_WITH
//
// plus the NOT forms and IS [NOT] NULL on every type. Keyword compares
// bytes, case-sensitively (< and > are byte-wise lexicographic).
// ExecutionStatus is a Keyword whose literals must be one of Running,
// Completed, Failed, Canceled, Terminated, ContinuedAsNew, TimedOut (read
// ignoring case and written back in that spelling); it takes only = != IN
// and IS NULL, since ordering statuses by name means nothing. An Int takes
// only an integer literal (1.5 and 1e3 are errors); a Double takes either.
// BETWEEN is inclusive at both ends; a BETWEEN whose low end is above its
// high end matches nothing. IN needs at least one literal.
//
// Text is matched by words, as a full-text index does: a word is a run of
// letters, digits and underscores, and Text = 'quick fox' holds when every
// word of the literal is a word of the value, ignoring case, in any order
// ('qui' does not match "quick"). A literal with no words matches nothing.
// KeywordList: = holds when the list contains the literal, IN when it
// contains any of them, STARTS_WITH when any element has the prefix.
//
// # Missing values
//
// A record may lack an attribute (CloseTime of a running execution, an
// unset custom attribute). Its comparisons, IN, BETWEEN and STARTS_WITH
// are false; every negated form is exactly NOT of the positive one, so
// !=, NOT IN, NOT BETWEEN and NOT STARTS_WITH are true for a missing
// value. This is the two-valued logic of Temporal's Elasticsearch
// visibility (a must_not clause matches documents without the field), not
// SQL's NULL logic. IS NULL tests for absence. A [Value] whose kind does
// not fit the attribute's type (a string for an Int), the zero time for a
// Datetime, and an empty KeywordList count as missing. A Double attribute
// accepts an int value, a KeywordList a single string. NaN in a Double
// is unequal to everything and never in a range.
//
// # Order
//
// [Query.Compare] orders by the ORDER BY keys, or by StartTime DESC when
// there are none, and then by RunId ascending unless RunId is already a
// key, so distinct executions never tie and pages are stable. ASC is the
// default direction. A record missing a key's value comes after all that
// have one, in either direction (Elasticsearch's default). Text and
// KeywordList attributes cannot be keys, and a key may not repeat. Bool
// orders false before true. [Query.OrderBy] returns the effective order and
// [Query.HasOrderBy] whether one was written (Temporal's Scan refuses
// ORDER BY; that check is the fake's).
//
// Paging: [Query.SortKey] reads a record's key values once; sort by
// [Query.CompareKeys]. The last key of a page, from [SortKey.MarshalBinary],
// is a next_page_token that stays right while executions come and go: the
// next page is the matches whose keys compare after it, found with
// [Query.ParseSortKey]. A token carries a fingerprint of the order, so a
// token from a query with another order, or a damaged one, is
// [ErrBadSortKey].
//
// # Canonical form
//
// [Query.String] prints the query canonically: keywords in upper case,
// != for <>, attribute names bare unless they need backquotes, strings
// in single quotes with the escapes above, numbers in Go's shortest form
// (no -0), booleans as true/false, statuses in their canonical spelling,
// datetimes in RFC 3339 with their own offset and no trailing zeros in
// the fraction, AND and OR chains flattened with the fewest parentheses,
// and ASC left out of ORDER BY. The tie-break key is not printed. The
// canonical form parses to a query with the same canonical form, matches
// and order; FuzzParse checks it.
//
// # Errors and limits
//
// Every error of [Parse] is a [*SyntaxError] whose Pos is a 0-based byte
// offset into the query: the first byte of the offending token or
// character, or len(query) when the query ends too early. Its text is
// "invalid query: <what> at position <Pos>". Queries are at most
// [MaxQueryLength] bytes of valid UTF-8, nested (parentheses and NOTs
// together) at most [MaxDepth] deep; nothing recurses further, and no
// input makes Parse panic (FuzzParse, FuzzParseSortKey).
//
// Not supported: LIKE, GROUP BY (Temporal's Count by ExecutionStatus),
// LIMIT, arithmetic, and datetimes as numbers. The [Schema] is safe for
// concurrent use; a parsed [Query] is immutable, keeps the types it was
// parsed with, and is safe for concurrent use.
package visibility
