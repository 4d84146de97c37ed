// Package expr parses and compiles expressions with Python semantics: the restrictions
// Kernel Tuner users and T1 files write (`32 <= bx*by <= 1024`, `KWG % KWI == 0`) and the
// list expressions that define parameter values (`[2**i for i in range(0, 6)]`).
//
// Nothing is evaluated with a general-purpose interpreter of user code: expressions are
// parsed once into a small syntax tree and compiled into typed Go closures.
package expr

import (
	"fmt"
	"strings"
)

// Error is a syntax or type error in an expression, with the position where it was found.
type Error struct {
	Expr string // the whole expression
	Pos  int    // byte offset in Expr
	Msg  string // what was wrong or expected
	// Unknown is the name an "unknown name" error is about, so that a caller who knows the
	// name was meant but failed to be defined (a constant whose own expression failed) can
	// leave out the errors that follow from it.
	Unknown string
}

// Error names the expression and the column, says what is wrong there and points at it.
func (e *Error) Error() string {
	return fmt.Sprintf("expression %q, column %d: %s\n    %s\n    %s^", e.Expr, e.Pos+1, e.Msg, e.Expr, strings.Repeat(" ", e.Pos))
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tNum
	tStr
	tName
	tOp
)

type token struct {
	kind tokKind
	text string // operator, name, number literal or decoded string
	pos  int
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tStr:
		return fmt.Sprintf("string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// twoOps are matched before the one-character operators.
var twoOps = []string{"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "<>"}

func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			start := i
			for i < len(src) && (isDigit(src[i]) || src[i] == '_') {
				i++
			}
			if i < len(src) && src[i] == '.' {
				i++
				for i < len(src) && isDigit(src[i]) {
					i++
				}
			}
			if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
				j := i + 1
				if j < len(src) && (src[j] == '+' || src[j] == '-') {
					j++
				}
				if j < len(src) && isDigit(src[j]) {
					i = j
					for i < len(src) && isDigit(src[i]) {
						i++
					}
				}
			}
			if i < len(src) && isNameChar(src[i]) {
				return nil, &Error{Expr: src, Pos: i, Msg: "invalid number literal"}
			}
			toks = append(toks, token{tNum, strings.ReplaceAll(src[start:i], "_", ""), start})
		case isNameStart(c):
			start := i
			for i < len(src) && isNameChar(src[i]) {
				i++
			}
			toks = append(toks, token{tName, src[start:i], start})
		case c == '"' || c == '\'':
			start := i
			i++
			var b strings.Builder
			for {
				if i >= len(src) {
					return nil, &Error{Expr: src, Pos: start, Msg: "unterminated string"}
				}
				if src[i] == c {
					i++
					break
				}
				if src[i] == '\\' && i+1 < len(src) {
					i++
					switch src[i] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(src[i])
					}
					i++
					continue
				}
				b.WriteByte(src[i])
				i++
			}
			toks = append(toks, token{tStr, b.String(), start})
		default:
			// C's logical operators, a habit from kernel code, are Python's words.
			for _, op := range [...]struct{ c, py string }{{"&&", "and"}, {"||", "or"}, {"!", "not"}} {
				if strings.HasPrefix(src[i:], op.c) && !strings.HasPrefix(src[i:], "!=") {
					return nil, &Error{Expr: src, Pos: i, Msg: fmt.Sprintf("%q is not an operator of Python expressions; write %q", op.c, op.py)}
				}
			}
			matched := false
			for _, op := range twoOps {
				if strings.HasPrefix(src[i:], op) {
					toks = append(toks, token{tOp, op, i})
					i += 2
					matched = true
					break
				}
			}
			if matched {
				continue
			}
			if strings.IndexByte("+-*/%()[],<>:&|^~", c) >= 0 {
				toks = append(toks, token{tOp, string(c), i})
				i++
				continue
			}
			if c == '=' && (i == 0 || src[i-1] != ':') {
				return nil, &Error{Expr: src, Pos: i, Msg: `"=" assigns, which an expression cannot; write "==" to compare`}
			}
			if c == '.' && len(toks) > 0 && toks[len(toks)-1].kind == tName && toks[len(toks)-1].pos+len(toks[len(toks)-1].text) == i {
				// a module's function, as Kernel Tuner's Python may call: np.arange, math.ceil
				return nil, &Error{Expr: src, Pos: i, Msg: fmt.Sprintf("unexpected character '.': expressions call Python's built-ins alone, not a module's functions (%s.%s); "+
					"write np.arange(a, b, s) as list(range(a, b, s)) and math.ceil(a / b) as (a + b - 1) // b",
					toks[len(toks)-1].text, leadingName(src[i+1:]))}
			}
			return nil, &Error{Expr: src, Pos: i, Msg: fmt.Sprintf("unexpected character %q", c)}
		}
	}
	return append(toks, token{tEOF, "", len(src)}), nil
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isNameStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isNameChar(c byte) bool  { return isNameStart(c) || isDigit(c) }

// leadingName is the name at the start of s, or "".
func leadingName(s string) string {
	i := 0
	for i < len(s) && isNameChar(s[i]) {
		i++
	}
	return s[:i]
}

// isName reports whether s is a name an expression can read.
func isName(s string) bool {
	if s == "" || !isNameStart(s[0]) || keywords[s] {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}
