package jsonio

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxNamed is how many items a Located warning names.
const MaxNamed = 3

// Located counts the items of a file (cache entries, results) that have one problem and
// names the first MaxNamed of them by a label and their line, with what they hold there.
// One and Many name an item and items ("entry", "entries").
type Located struct {
	One, Many string
	source    string
	n         int
	named     []string
}

// Add counts an item at decoder offset off, labelled (`entry "16,4"`, "result 3"), with
// what it holds ("" for nothing more).
func (l *Located) Add(in *Input, off int64, label, what string) {
	l.source = in.Source
	if l.n++; len(l.named) < MaxNamed {
		_, line, _ := in.Pos(off)
		s := fmt.Sprintf("%s at line %d", label, line)
		if what != "" {
			s += ": " + what
		}
		l.named = append(l.named, s)
	}
}

// Count is how many items were added.
func (l *Located) Count() int { return l.n }

// Warning is "SOURCE: N ITEMS PROBLEM (the items named); CONSEQUENCE", with problem
// written for many items ("have no value") and one ("has no value"), and the consequence
// for one item or many; "" when no item was added.
func (l *Located) Warning(problemOne, problemMany, thenOne, thenMany string) string {
	if l.n == 0 {
		return ""
	}
	list := strings.Join(l.named, "; ")
	if more := l.n - len(l.named); more > 0 {
		list += fmt.Sprintf("; and %d more", more)
	}
	item, problem, then := l.Many, problemMany, thenMany
	if l.n == 1 {
		item, problem, then = l.One, problemOne, thenOne
	}
	return fmt.Sprintf("%s: %s %s %s (%s); %s", l.source, strconv.Itoa(l.n), item, problem, list, then)
}
