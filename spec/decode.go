package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// Error is a problem with a spec, located by file, line and field.
type Error struct {
	File  string // the spec file, as given to Load or Parse
	Line  int    // 1-based line in the file; 0 when the problem has no single place
	Field string // the field path, e.g. "arguments[2].length"; empty for the whole file
	Msg   string // what is wrong and what is expected
}

// Error formats the problem as file:line: field: message, as compilers do; a spec parsed
// from data without a path is called "spec".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.name())
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// name is the spec's file, or "spec" for one parsed from data without a path.
func (e *Error) name() string {
	if e.File == "" {
		return "spec"
	}
	return e.File
}

// maxErrors bounds how many problems one Parse reports; the rest are counted.
const maxErrors = 12

// nodeBudget bounds how many YAML nodes a spec may expand to, aliases included, so that
// a small file of nested aliases cannot make the decoder run for ever.
const nodeBudget = 1 << 20

// decoder walks a YAML node tree and collects located errors.
type decoder struct {
	file    string
	errs    []error
	dropped int
	visited int
	// broken are the constants whose own definition failed (and was reported): an
	// expression that reads one fails only for that, so its "unknown name" is left out.
	broken map[string]bool
}

func (d *decoder) errAt(line int, field, format string, args ...any) {
	for _, a := range args {
		var e *expr.Error
		if err, ok := a.(error); ok && errors.As(err, &e) && e.Unknown != "" && d.broken[e.Unknown] {
			return
		}
	}
	if len(d.errs) >= maxErrors {
		d.dropped++
		return
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) errf(n *yaml.Node, field, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	d.errAt(line, field, format, args...)
}

func (d *decoder) err() error {
	if len(d.errs) == 0 {
		return nil
	}
	errs := d.errs
	if d.dropped > 0 {
		errs = append(errs[:len(errs):len(errs)], fmt.Errorf("%s: and %d more problems", (&Error{File: d.file}).name(), d.dropped))
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// resolve follows aliases and counts the node against the budget; it returns nil once the
// budget is spent.
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode; depth++ {
		if depth > 64 {
			return nil
		}
		n = n.Alias
	}
	d.visited++
	if d.visited == nodeBudget {
		d.errAt(0, "", "the spec expands to more than %d YAML nodes (too many aliases?)", nodeBudget)
	}
	if d.visited >= nodeBudget {
		return nil
	}
	return n
}

// plain reports whether a scalar is written as is: not quoted, tagged or a block scalar,
// any of which says a string is meant.
func plain(n *yaml.Node) bool {
	return n.Style&(yaml.TaggedStyle|yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing (null)"
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		}
		return n.Value
	}
	return "something else"
}

// entry is one key of a mapping, in the order the file gives it.
type entry struct {
	key   string
	line  int
	value *yaml.Node
}

// mapping returns the entries of a mapping node, checking duplicate keys and, when known
// is not nil, unknown keys (with a suggestion of the closest known key).
func (d *decoder) mapping(n *yaml.Node, field string, known []string) ([]entry, bool) {
	n = d.resolve(n)
	if n == nil {
		return nil, false
	}
	if n.Kind != yaml.MappingNode {
		d.errf(n, field, "expected a mapping (key: value lines), found %s", describe(n))
		return nil, false
	}
	out := make([]entry, 0, len(n.Content)/2)
	seen := map[string]bool{}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := d.resolve(n.Content[i])
		if k == nil {
			return nil, false
		}
		if k.Kind != yaml.ScalarNode {
			d.errf(k, field, "expected a name as key, found %s", describe(k))
			ok = false
			continue
		}
		sub := join(field, k.Value)
		if seen[k.Value] {
			d.errf(k, sub, "given twice")
			ok = false
			continue
		}
		seen[k.Value] = true
		if known != nil && !contains(known, k.Value) {
			hint := suggest(k.Value, known)
			if kt, isKT := kernelTunerNames[k.Value]; isKT {
				hint = fmt.Sprintf("; Kernel Tuner's %s is %s here", k.Value, kt)
			}
			d.errf(k, sub, "unknown field%s; expected one of %s", hint, strings.Join(known, ", "))
			ok = false
			continue
		}
		out = append(out, entry{key: k.Value, line: k.Line, value: n.Content[i+1]})
	}
	return out, ok
}

// list returns the items of a sequence; a single scalar counts as a one-item list when
// scalarOK is set.
func (d *decoder) list(n *yaml.Node, field string, scalarOK bool) ([]*yaml.Node, bool) {
	n = d.resolve(n)
	if n == nil {
		return nil, false
	}
	if n.Kind == yaml.ScalarNode && scalarOK && n.ShortTag() != "!!null" {
		return []*yaml.Node{n}, true
	}
	if n.Kind != yaml.SequenceNode {
		d.errf(n, field, "expected a list, found %s", describe(n))
		return nil, false
	}
	return n.Content, true
}

func (d *decoder) scalar(n *yaml.Node, field, want string) (*yaml.Node, bool) {
	n = d.resolve(n)
	if n == nil {
		return nil, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		d.errf(n, field, "expected %s, found %s", want, describe(n))
		return nil, false
	}
	return n, true
}

func (d *decoder) str(n *yaml.Node, field string) (string, bool) {
	n, ok := d.scalar(n, field, "a string")
	if !ok {
		return "", false
	}
	if n.ShortTag() != "!!str" {
		d.errf(n, field, "expected a string, found %s", describe(n))
		return "", false
	}
	return n.Value, true
}

// name is a non-empty string.
func (d *decoder) name(n *yaml.Node, field string) (string, bool) {
	s, ok := d.str(n, field)
	if ok && strings.TrimSpace(s) == "" {
		d.errf(n, field, "must not be empty")
		return "", false
	}
	return s, ok
}

func (d *decoder) boolean(n *yaml.Node, field string) (bool, bool) {
	n, ok := d.scalar(n, field, "true or false")
	if !ok {
		return false, false
	}
	var b bool
	if n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		d.errf(n, field, "expected true or false, found %s", describe(n))
		return false, false
	}
	return b, true
}

func (d *decoder) integer(n *yaml.Node, field string) (int64, bool) {
	n, ok := d.scalar(n, field, "an integer")
	if !ok {
		return 0, false
	}
	var i int64
	if n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		d.errf(n, field, "expected an integer, found %s", describe(n))
		return 0, false
	}
	return i, true
}

func (d *decoder) number(n *yaml.Node, field string) (float64, bool) {
	n, ok := d.scalar(n, field, "a number")
	if !ok {
		return 0, false
	}
	var f float64
	if (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || n.Decode(&f) != nil {
		d.errf(n, field, "expected a number, found %s", describe(n))
		return 0, false
	}
	return f, true
}

// value decodes a scalar into a parameter value: int, float, bool or string.
func (d *decoder) value(n *yaml.Node, field string) (space.Value, bool) {
	n, ok := d.scalar(n, field, "a number, true/false or a string")
	if !ok {
		return space.Value{}, false
	}
	switch n.ShortTag() {
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			d.errf(n, field, "integer %s does not fit in 64 bits", n.Value)
			return space.Value{}, false
		}
		return space.IntValue(i), true
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			d.errf(n, field, "malformed number %s", n.Value)
			return space.Value{}, false
		}
		return space.FloatValue(f), true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			d.errf(n, field, "malformed boolean %s", n.Value)
			return space.Value{}, false
		}
		return space.BoolValue(b), true
	case "!!str":
		return space.StringValue(n.Value), true
	}
	d.errf(n, field, "expected a number, true/false or a string, found %s", describe(n))
	return space.Value{}, false
}

// exprSource returns the source of an expression field: a string is the expression, a
// number its own expression.
func (d *decoder) exprSource(n *yaml.Node, field string) (string, bool) {
	n, ok := d.scalar(n, field, "a number or an expression string")
	if !ok {
		return "", false
	}
	switch n.ShortTag() {
	case "!!str":
		if strings.TrimSpace(n.Value) == "" {
			d.errf(n, field, "expected an expression, found an empty string")
			return "", false
		}
		return n.Value, true
	case "!!int", "!!float":
		v, ok := d.value(n, field)
		if !ok {
			return "", false
		}
		return v.String(), true
	}
	d.errf(n, field, "expected a number or an expression string, found %s", describe(n))
	return "", false
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func index(field string, i int) string { return fmt.Sprintf("%s[%d]", field, i) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest returns `; did you mean "x"?` for the known word closest to s, or "".
func suggest(s string, known []string) string {
	best := expr.Closest(s, known)
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlParserProblems are the messages of the YAML parser proper, as opposed to its
// scanner. yaml.v3 reports their line 0-based (the scanner's 1-based), so one is added.
var yamlParserProblems = []string{
	"did not find expected <document start>", "did not find expected node content",
	"did not find expected key", "did not find expected '-' indicator",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found undefined tag handle", "found duplicate %TAG directive",
}

// syntaxError turns a YAML parser error into a located Error. JSON input is checked with
// encoding/json first, whose offsets are exact.
func syntaxError(file string, data []byte, err error) error {
	if looksJSON(file, data) {
		var v any
		if jerr := json.Unmarshal(data, &v); jerr != nil {
			var se *json.SyntaxError
			if errors.As(jerr, &se) {
				line, col := 1, 1
				for _, b := range data[:min(int(se.Offset), len(data))] {
					if b == '\n' {
						line, col = line+1, 1
					} else {
						col++
					}
				}
				return &Error{File: file, Line: line, Msg: fmt.Sprintf("malformed JSON at column %d: %v", col, se)}
			}
		}
	}
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if contains(yamlParserProblems, msg) {
			line++
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if lines := bytes.Split(data, []byte("\n")); line >= 1 && line <= len(lines) && bytes.HasPrefix(bytes.TrimLeft(lines[line-1], " "), []byte("\t")) {
		msg += " (a tab indents this line: YAML indents with spaces only)"
	}
	return &Error{File: file, Line: line, Msg: "malformed YAML: " + msg}
}

// looksJSON reports whether data is meant as JSON: a .json file, or an object whose
// first key is quoted.
func looksJSON(file string, data []byte) bool {
	if strings.EqualFold(filepath.Ext(file), ".json") {
		return true
	}
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	t = bytes.TrimSpace(t[1:])
	return len(t) > 0 && t[0] == '"'
}

// isCIdentifier reports whether s is a C identifier: a letter or underscore, then letters,
// digits and underscores.
func isCIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isCKeyword reports whether s is a keyword of C (C11, the language OpenCL C and CUDA
// build on) or the preprocessor's defined: a macro of that name breaks the code.
func isCKeyword(s string) bool {
	switch s {
	case "auto", "break", "case", "char", "const", "continue", "default", "defined", "do", "double",
		"else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
		"restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
		"union", "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool",
		"_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local":
		return true
	}
	return false
}

// isCXXKeyword reports whether s is a keyword of C++ that is not one of C (isCKeyword),
// alternative operator spellings (and, not_eq) included: a #define of one breaks C++ code.
func isCXXKeyword(s string) bool {
	switch s {
	case "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char8_t",
		"char16_t", "char32_t", "class", "compl", "concept", "consteval", "constexpr", "constinit",
		"const_cast", "co_await", "co_return", "co_yield", "decltype", "delete", "dynamic_cast",
		"explicit", "export", "false", "friend", "mutable", "namespace", "new", "noexcept", "not",
		"not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
		"reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this",
		"thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t",
		"xor", "xor_eq":
		return true
	}
	return false
}

// exprReserved lists the words of expressions that cannot name a value in them.
const exprReserved = "and, or, not, in, is, if, else, for, True, False, None, lambda"

// isReserved reports whether s is a Python keyword that expressions reserve.
func isReserved(s string) bool {
	switch s {
	case "and", "or", "not", "in", "is", "if", "else", "for", "True", "False", "None", "lambda":
		return true
	}
	return false
}

// isIdentifier reports whether s is a C and Python identifier (and not a Python keyword
// that expressions reserve): a name expressions can use.
func isIdentifier(s string) bool { return isCIdentifier(s) && !isReserved(s) }

// notIdentifier says why s, which isIdentifier refuses, cannot name something expressions
// use.
func notIdentifier(s string) string {
	if isCIdentifier(s) {
		return fmt.Sprintf("%q is a reserved word in expressions (%s); choose another name", s, exprReserved)
	}
	return fmt.Sprintf("%q is not a valid identifier", s)
}
