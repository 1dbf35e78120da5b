package visibility

import (
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF     tokKind = iota
	tIdent           // bare word that is not a keyword
	tQuoted          // `backquoted` attribute name
	tKeyword         // AND, OR, …: text holds the upper-case keyword
	tString          // '…' or "…": text holds the unescaped value
	tNumber          // text holds the literal as written
	tOp              // = != <> < <= > >=
	tLParen
	tRParen
	tComma
)

type token struct {
	kind tokKind
	pos  int
	text string
	raw  string // the token as written, for messages
}

// keywords are matched ignoring case; a bare word that is one of them is
// never an attribute name (backquote it).
var keywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IN": true, "BETWEEN": true,
	"STARTS_WITH": true, "ORDER": true, "BY": true, "ASC": true, "DESC": true,
	"TRUE": true, "FALSE": true, "IS": true, "NULL": true,
}

func isKeyword(s string) bool { return keywords[strings.ToUpper(s)] }

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentByte(c byte) bool { return isIdentStart(c) || isDigit(c) }

// lex splits the whole query into tokens, ending with tEOF.
func lex(src string) ([]token, error) {
	if !utf8.ValidString(src) {
		for i, r := range src {
			if r == utf8.RuneError {
				if _, size := utf8.DecodeRuneInString(src[i:]); size == 1 {
					return nil, errorf(i, "invalid UTF-8")
				}
			}
		}
	}
	var toks []token
	i := 0
	for {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		if i == len(src) {
			return append(toks, token{kind: tEOF, pos: i, raw: "end of query"}), nil
		}
		start := i
		c := src[i]
		switch {
		case isIdentStart(c):
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
			w := src[start:i]
			if up := strings.ToUpper(w); keywords[up] {
				toks = append(toks, token{kind: tKeyword, pos: start, text: up, raw: w})
			} else {
				toks = append(toks, token{kind: tIdent, pos: start, text: w, raw: w})
			}
		case isDigit(c) || c == '-' && i+1 < len(src) && isDigit(src[i+1]):
			end, err := scanNumber(src, i)
			if err != nil {
				return nil, err
			}
			i = end
			toks = append(toks, token{kind: tNumber, pos: start, text: src[start:i], raw: src[start:i]})
		case c == '\'' || c == '"' || c == '`':
			s, end, err := scanQuoted(src, i)
			if err != nil {
				return nil, err
			}
			i = end
			k := tString
			if c == '`' {
				k = tQuoted
				if s == "" {
					return nil, errorf(start, "empty attribute name")
				}
			}
			toks = append(toks, token{kind: k, pos: start, text: s, raw: src[start:i]})
		case c == '(':
			i++
			toks = append(toks, token{kind: tLParen, pos: start, text: "(", raw: "("})
		case c == ')':
			i++
			toks = append(toks, token{kind: tRParen, pos: start, text: ")", raw: ")"})
		case c == ',':
			i++
			toks = append(toks, token{kind: tComma, pos: start, text: ",", raw: ","})
		case c == '=':
			i++
			toks = append(toks, token{kind: tOp, pos: start, text: "=", raw: "="})
		case c == '!' || c == '<' || c == '>':
			i++
			op := src[start:i]
			if i < len(src) && (src[i] == '=' || c == '<' && src[i] == '>') {
				i++
				op = src[start:i]
			}
			if op == "!" {
				return nil, errorf(start, `unexpected character "!"`)
			}
			text := op
			if op == "<>" {
				text = "!="
			}
			toks = append(toks, token{kind: tOp, pos: start, text: text, raw: op})
		default:
			r, _ := utf8.DecodeRuneInString(src[i:])
			return nil, errorf(start, "unexpected character %q", r)
		}
	}
}

// scanNumber reads -?digits(.digits)?([eE][+-]?digits)? from i, which
// must not run into a letter, a digit or a dot.
func scanNumber(src string, i int) (int, error) {
	start := i
	if src[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		return i > j
	}
	digits()
	if i < len(src) && src[i] == '.' {
		i++
		if !digits() {
			return 0, errorf(start, "malformed number %q", src[start:i])
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if !digits() {
			return 0, errorf(start, "malformed number %q", src[start:i])
		}
	}
	if i < len(src) && (isIdentByte(src[i]) || src[i] == '.') {
		j := i
		for j < len(src) && (isIdentByte(src[j]) || src[j] == '.') {
			j++
		}
		return 0, errorf(start, "malformed number %q", src[start:j])
	}
	return i, nil
}

// scanQuoted reads a literal quoted by src[i] (', " or `) and returns its
// value and the offset after the closing quote. Escapes: \\ \' \" \` \n
// \r \t \0; and the quote written twice stands for one quote. Anything
// else after a backslash is an error.
func scanQuoted(src string, i int) (string, int, error) {
	q := src[i]
	start := i
	i++
	var b strings.Builder
	plain := i // start of the run not yet copied
	for i < len(src) {
		c := src[i]
		switch {
		case c == q && i+1 < len(src) && src[i+1] == q:
			b.WriteString(src[plain : i+1])
			i += 2
			plain = i
		case c == q:
			if b.Len() == 0 {
				return src[plain:i], i + 1, nil
			}
			b.WriteString(src[plain:i])
			return b.String(), i + 1, nil
		case c == '\\':
			b.WriteString(src[plain:i])
			if i+1 == len(src) {
				return "", 0, errorf(start, "unterminated %s", quoteName(q))
			}
			switch e := src[i+1]; e {
			case '\\', '\'', '"', '`':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '0':
				b.WriteByte(0)
			default:
				r, _ := utf8.DecodeRuneInString(src[i+1:])
				return "", 0, errorf(i, "unknown escape \\%c", r)
			}
			i += 2
			plain = i
		default:
			i++
		}
	}
	return "", 0, errorf(start, "unterminated %s", quoteName(q))
}

func quoteName(q byte) string {
	if q == '`' {
		return "attribute name"
	}
	return "string"
}

// quote writes s as a canonical literal in quote q, escaping only the
// quote, the backslash, and the characters \n \r \t \0.
func quote(b *strings.Builder, s string, q byte) {
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case q, '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
}

// writeName writes an attribute name bare when it lexes back as the same
// identifier, else backquoted.
func writeName(b *strings.Builder, name string) {
	bare := name != "" && isIdentStart(name[0]) && !isKeyword(name)
	for i := 0; bare && i < len(name); i++ {
		bare = isIdentByte(name[i])
	}
	if bare {
		b.WriteString(name)
		return
	}
	quote(b, name, '`')
}
