package expr

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/space"
)

// Node is a parsed expression.
type Node interface{ Pos() int }

type (
	numLit struct {
		pos   int
		isInt bool
		i     int64
		f     float64
	}
	strLit struct {
		pos int
		s   string
	}
	boolLit struct {
		pos int
		b   bool
	}
	noneLit struct{ pos int }
	name    struct {
		pos int
		id  string
	}
	unary struct {
		pos int
		op  string // "-", "+", "~", "not"
		x   Node
	}
	binary struct {
		pos  int
		op   string // + - * / // % ** & | ^ << >>
		l, r Node
	}
	boolOp struct {
		pos  int
		op   string // and, or
		l, r Node
	}
	compare struct {
		pos  int
		ops  []string // < <= > >= == != in "not in"
		args []Node   // len(ops)+1
	}
	call struct {
		pos  int
		fn   string
		args []Node
	}
	listLit struct {
		pos   int
		elems []Node
	}
	listComp struct {
		pos  int
		elem Node
		v    string
		iter Node
		cond Node // nil when absent
	}
	ifExpr struct {
		pos           int
		cond, yes, no Node
	}
)

func (n *numLit) Pos() int   { return n.pos }
func (n *strLit) Pos() int   { return n.pos }
func (n *boolLit) Pos() int  { return n.pos }
func (n *noneLit) Pos() int  { return n.pos }
func (n *name) Pos() int     { return n.pos }
func (n *unary) Pos() int    { return n.pos }
func (n *binary) Pos() int   { return n.pos }
func (n *boolOp) Pos() int   { return n.pos }
func (n *compare) Pos() int  { return n.pos }
func (n *call) Pos() int     { return n.pos }
func (n *listLit) Pos() int  { return n.pos }
func (n *listComp) Pos() int { return n.pos }
func (n *ifExpr) Pos() int   { return n.pos }

type parser struct {
	src  string
	toks []token
	i    int
}

// Parse parses one expression with Python syntax. Only the subset that restrictions and
// value lists need is accepted: literals, names, arithmetic, comparisons (chained),
// and/or/not, `in`, conditional expressions, calls of known functions, lists and one-level
// list comprehensions.
func Parse(src string) (Node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	if p.peek().kind == tEOF {
		return nil, p.errf(p.peek(), "empty expression")
	}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errf(t, "expected an operator or end of expression, found %s", t.describe())
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}
func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == op
}
func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tName && t.text == kw
}
func (p *parser) errf(t token, format string, args ...any) error {
	return &Error{Expr: p.src, Pos: t.pos, Msg: fmt.Sprintf(format, args...)}
}
func (p *parser) expect(op string) error {
	if !p.isOp(op) {
		t := p.peek()
		return p.errf(t, "expected %q, found %s", op, t.describe())
	}
	p.next()
	return nil
}

// expr := or_test ['if' or_test 'else' expr]
func (p *parser) expr() (Node, error) {
	n, err := p.orTest()
	if err != nil {
		return nil, err
	}
	if p.isKeyword("if") {
		t := p.next()
		cond, err := p.orTest()
		if err != nil {
			return nil, err
		}
		if !p.isKeyword("else") {
			return nil, p.errf(p.peek(), "expected \"else\", found %s", p.peek().describe())
		}
		p.next()
		no, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &ifExpr{pos: t.pos, cond: cond, yes: n, no: no}, nil
	}
	return n, nil
}

func (p *parser) orTest() (Node, error) {
	l, err := p.andTest()
	if err != nil {
		return nil, err
	}
	for p.isKeyword("or") {
		t := p.next()
		r, err := p.andTest()
		if err != nil {
			return nil, err
		}
		l = &boolOp{pos: t.pos, op: "or", l: l, r: r}
	}
	return l, nil
}

func (p *parser) andTest() (Node, error) {
	l, err := p.notTest()
	if err != nil {
		return nil, err
	}
	for p.isKeyword("and") {
		t := p.next()
		r, err := p.notTest()
		if err != nil {
			return nil, err
		}
		l = &boolOp{pos: t.pos, op: "and", l: l, r: r}
	}
	return l, nil
}

func (p *parser) notTest() (Node, error) {
	if p.isKeyword("not") {
		t := p.next()
		x, err := p.notTest()
		if err != nil {
			return nil, err
		}
		return &unary{pos: t.pos, op: "not", x: x}, nil
	}
	return p.comparison()
}

func (p *parser) compOp() (string, bool) {
	t := p.peek()
	if t.kind == tOp {
		switch t.text {
		case "<", "<=", ">", ">=", "==", "!=":
			p.next()
			return t.text, true
		case "<>":
			return "", false
		}
	}
	if t.kind == tName {
		switch t.text {
		case "in":
			p.next()
			return "in", true
		case "not":
			if n := p.toks[p.i+1]; n.kind == tName && n.text == "in" {
				p.next()
				p.next()
				return "not in", true
			}
		case "is":
			return "", false
		}
	}
	return "", false
}

func (p *parser) comparison() (Node, error) {
	start := p.peek()
	first, err := p.bitOr()
	if err != nil {
		return nil, err
	}
	c := &compare{pos: start.pos, args: []Node{first}}
	for {
		if t := p.peek(); t.kind == tName && t.text == "is" {
			return nil, p.errf(t, "\"is\" is not supported; use == or !=")
		}
		op, ok := p.compOp()
		if !ok {
			break
		}
		r, err := p.bitOr()
		if err != nil {
			return nil, err
		}
		c.ops = append(c.ops, op)
		c.args = append(c.args, r)
	}
	if len(c.ops) == 0 {
		return first, nil
	}
	return c, nil
}

// binaryLevel parses operands joined by any of ops, left-associative.
func (p *parser) binaryLevel(operand func() (Node, error), ops ...string) (Node, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tOp || !slices.Contains(ops, t.text) {
			return l, nil
		}
		p.next()
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = &binary{pos: t.pos, op: t.text, l: l, r: r}
	}
}

// The bitwise operators bind as in Python: | loosest, then ^, &, the shifts, and all of
// them tighter than comparisons and looser than + and -: 1 + 2 << 3 == 24.
func (p *parser) bitOr() (Node, error)  { return p.binaryLevel(p.bitXor, "|") }
func (p *parser) bitXor() (Node, error) { return p.binaryLevel(p.bitAnd, "^") }
func (p *parser) bitAnd() (Node, error) { return p.binaryLevel(p.shift, "&") }
func (p *parser) shift() (Node, error)  { return p.binaryLevel(p.arith, "<<", ">>") }

func (p *parser) arith() (Node, error) {
	l, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		t := p.next()
		r, err := p.term()
		if err != nil {
			return nil, err
		}
		l = &binary{pos: t.pos, op: t.text, l: l, r: r}
	}
	return l, nil
}

func (p *parser) term() (Node, error) {
	l, err := p.factor()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("//") || p.isOp("%") {
		t := p.next()
		r, err := p.factor()
		if err != nil {
			return nil, err
		}
		l = &binary{pos: t.pos, op: t.text, l: l, r: r}
	}
	return l, nil
}

func (p *parser) factor() (Node, error) {
	if p.isOp("-") || p.isOp("+") || p.isOp("~") {
		t := p.next()
		x, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &unary{pos: t.pos, op: t.text, x: x}, nil
	}
	return p.power()
}

// power := atom ['**' factor]; ** binds tighter than unary minus on its left
// and is right-associative, as in Python.
func (p *parser) power() (Node, error) {
	base, err := p.atom()
	if err != nil {
		return nil, err
	}
	if p.isOp("**") {
		t := p.next()
		exp, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &binary{pos: t.pos, op: "**", l: base, r: exp}, nil
	}
	return base, nil
}

var keywords = map[string]bool{"and": true, "or": true, "not": true, "in": true, "if": true, "else": true, "for": true, "is": true, "lambda": true}

func (p *parser) atom() (Node, error) {
	t := p.next()
	switch t.kind {
	case tNum:
		return parseNumber(p, t)
	case tStr:
		s := t.text
		// Adjacent string literals concatenate, as in Python.
		for p.peek().kind == tStr {
			s += p.next().text
		}
		return &strLit{pos: t.pos, s: s}, nil
	case tName:
		switch t.text {
		case "True", "False":
			return &boolLit{pos: t.pos, b: t.text == "True"}, nil
		case "None":
			return &noneLit{pos: t.pos}, nil
		}
		if t.text == "lambda" {
			// Kernel Tuner takes restrictions and metrics as lambdas of a dict
			return nil, p.errf(t, "expected a value, found keyword \"lambda\": write the lambda's body alone, reading the names directly (Kernel Tuner's lambda p: p[\"x\"] * 2 is x * 2)")
		}
		if keywords[t.text] {
			return nil, p.errf(t, "expected a value, found keyword %q", t.text)
		}
		if p.isOp("(") {
			p.next()
			var args []Node
			for !p.isOp(")") {
				a, err := p.expr()
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if p.isOp(",") {
					p.next()
					continue
				}
				if !p.isOp(")") {
					return nil, p.errf(p.peek(), "expected \",\" or \")\" in call of %s, found %s", t.text, p.peek().describe())
				}
			}
			p.next()
			return &call{pos: t.pos, fn: t.text, args: args}, nil
		}
		if p.isOp("[") {
			// Kernel Tuner's lambdas read a dict: p["block_size_x"], p["time"]
			if k := p.toks[p.i+1]; k.kind == tStr && p.i+2 < len(p.toks) && p.toks[p.i+2].kind == tOp && p.toks[p.i+2].text == "]" {
				if !isName(k.text) {
					return nil, p.errf(p.peek(), "expected an operator or end of expression, found \"[\": expressions read names directly, not from a dict as Kernel Tuner's lambdas do, and %q is no name they can read; name what it is (a metric) with letters, digits and _ to read it", k.text)
				}
				return nil, p.errf(p.peek(), "expected an operator or end of expression, found \"[\": write %s[%q] as %s, the name alone (expressions read names directly, not from a dict as Kernel Tuner's lambdas do)", t.text, k.text, k.text)
			}
			return nil, p.errf(p.peek(), "expected an operator or end of expression, found \"[\": expressions have no subscripts")
		}
		return &name{pos: t.pos, id: t.text}, nil
	case tOp:
		switch t.text {
		case "(":
			if p.isOp(")") {
				p.next()
				return &listLit{pos: t.pos}, nil // the empty tuple: x in () is never true
			}
			n, err := p.expr()
			if err != nil {
				return nil, err
			}
			if p.isOp(",") {
				// A tuple: treated as a list, which is all `x in (1, 2)` needs.
				l := &listLit{pos: t.pos, elems: []Node{n}}
				for p.isOp(",") {
					p.next()
					if p.isOp(")") {
						break
					}
					e, err := p.expr()
					if err != nil {
						return nil, err
					}
					l.elems = append(l.elems, e)
				}
				n = l
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return n, nil
		case "[":
			return p.list(t)
		}
	}
	return nil, p.errf(t, "expected a number, name, string, \"(\" or \"[\", found %s", t.describe())
}

func parseNumber(p *parser, t token) (Node, error) {
	if !strings.ContainsAny(t.text, ".eE") {
		i, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return nil, p.errf(t, "integer %s out of range", t.text)
		}
		return &numLit{pos: t.pos, isInt: true, i: i, f: float64(i)}, nil
	}
	f, err := strconv.ParseFloat(t.text, 64)
	if err != nil {
		return nil, p.errf(t, "invalid number %s", t.text)
	}
	return &numLit{pos: t.pos, f: f}, nil
}

func (p *parser) list(open token) (Node, error) {
	l := &listLit{pos: open.pos}
	if p.isOp("]") {
		p.next()
		return l, nil
	}
	first, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.isKeyword("for") {
		p.next()
		v := p.next()
		if v.kind != tName || keywords[v.text] {
			return nil, p.errf(v, "expected a loop variable name, found %s", v.describe())
		}
		if !p.isKeyword("in") {
			return nil, p.errf(p.peek(), "expected \"in\", found %s", p.peek().describe())
		}
		p.next()
		iter, err := p.orTest()
		if err != nil {
			return nil, err
		}
		lc := &listComp{pos: open.pos, elem: first, v: v.text, iter: iter}
		if p.isKeyword("if") {
			p.next()
			if lc.cond, err = p.orTest(); err != nil {
				return nil, err
			}
		}
		if p.isKeyword("for") {
			return nil, p.errf(p.peek(), "nested comprehensions are not supported")
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		return lc, nil
	}
	l.elems = append(l.elems, first)
	for p.isOp(",") {
		p.next()
		if p.isOp("]") {
			break
		}
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		l.elems = append(l.elems, e)
	}
	if err := p.expect("]"); err != nil {
		return nil, err
	}
	return l, nil
}

// Names returns the free names an expression reads (loop variables excluded, function names
// excluded), each once, in order of first appearance.
func Names(n Node) []string {
	var out []string
	seen := map[string]bool{}
	freeNames(n, func(t *name) {
		if !seen[t.id] {
			seen[t.id] = true
			out = append(out, t.id)
		}
	})
	return out
}

// freeNames calls visit with every occurrence of a free name in n (not a loop variable of
// a comprehension around it), in order.
func freeNames(n Node, visit func(*name)) {
	inspect(n, func(n Node, bound map[string]bool) {
		if t, ok := n.(*name); ok && !bound[t.id] {
			visit(t)
		}
	})
}

// inspect calls visit with every node of n, in order, each with the loop variables of the
// comprehensions around it (bound).
func inspect(n Node, visit func(n Node, bound map[string]bool)) {
	var walk func(n Node, bound map[string]bool)
	walk = func(n Node, bound map[string]bool) {
		visit(n, bound)
		switch t := n.(type) {
		case *unary:
			walk(t.x, bound)
		case *binary:
			walk(t.l, bound)
			walk(t.r, bound)
		case *boolOp:
			walk(t.l, bound)
			walk(t.r, bound)
		case *compare:
			for _, a := range t.args {
				walk(a, bound)
			}
		case *call:
			for _, a := range t.args {
				walk(a, bound)
			}
		case *listLit:
			for _, a := range t.elems {
				walk(a, bound)
			}
		case *listComp:
			walk(t.iter, bound)
			inner := map[string]bool{t.v: true}
			for k := range bound {
				inner[k] = true
			}
			walk(t.elem, inner)
			if t.cond != nil {
				walk(t.cond, inner)
			}
		case *ifExpr:
			walk(t.cond, bound)
			walk(t.yes, bound)
			walk(t.no, bound)
		}
	}
	walk(n, map[string]bool{})
}

// BindConstants returns src with every free occurrence of a name in constants replaced by
// its value (written as Python writes the number), so that the expression reads on its own
// where the constants are not known: a restriction of a kernel spec stored with its run.
func BindConstants(src string, constants map[string]float64) (string, error) {
	n, err := Parse(src)
	if err != nil {
		return "", err
	}
	type edit struct {
		pos, end int
		text     string
	}
	var edits []edit
	freeNames(n, func(t *name) {
		v, ok := constants[t.id]
		if !ok {
			return
		}
		text := space.FormatFloat(v)
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			text = strconv.FormatInt(int64(v), 10)
		}
		if v < 0 {
			text = "(" + text + ")"
		}
		edits = append(edits, edit{t.pos, t.pos + len(t.id), text})
	})
	if len(edits) == 0 {
		return src, nil
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.pos - b.pos })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.pos < at || e.end > len(src) || src[e.pos:e.end] == "" {
			return "", fmt.Errorf("expr: binding constants in %q: a name is not where the parser put it", src)
		}
		b.WriteString(src[at:e.pos])
		b.WriteString(e.text)
		at = e.end
	}
	b.WriteString(src[at:])
	return b.String(), nil
}
