package result

import (
	"regexp"
	"slices"
	"strings"
)

// Warning is one distinct compiler warning of a set of evaluations (DistinctWarnings).
type Warning struct {
	// Text is the warning as the first evaluation that gave it has it: its line, then the
	// lines that belong to it (the source line and caret, notes), cut at MaxWarningLines
	// lines and MaxWarningBytes bytes.
	Text  string
	Count int // how many evaluations' builds gave it
	First int // the index of the first evaluation that gave it
}

// Bounds of DistinctWarnings: the lines and bytes of one warning's text, and how many
// distinct warnings it lists.
const (
	MaxWarningLines = 8
	MaxWarningBytes = 1000
	MaxWarnings     = 20
)

// warningLine starts a warning in a compiler's output: "k.c:3:5: warning: ..." (gcc,
// clang), "warning: k.cl:3:10: ..." (PoCL's build log), "k.cu(3): warning #177-D: ..."
// (NVRTC).
var warningLine = regexp.MustCompile(`(?i)\bwarning( #[0-9A-Za-z-]+)?:`)

// tallyLine is a compiler's closing count ("2 warnings generated."), and contextLine is the
// line gcc and clang print before a function's or header's warnings: neither is a
// warning of its own, nor part of the one before it.
var (
	tallyLine   = regexp.MustCompile(`^[0-9]+ warnings?( and [0-9]+ errors?)? generated\.?$`)
	contextLine = regexp.MustCompile(`: In (function|member function|constructor|destructor|instantiation of|static member function) |^In file included from |^\s+from .*[:,]$|: At (top level|global scope):$`)
)

// splitWarnings cuts a compiler's output into its warnings, each a line that starts one
// and the lines that follow it up to the next. Output with no such line (a compiler
// that says something else) is one warning, all of it.
func splitWarnings(out string) []string {
	var ws []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			ws = append(ws, strings.Join(cur, "\n"))
		}
		cur = nil
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		line = strings.TrimRight(line, " \t\r")
		t := strings.TrimSpace(line)
		switch {
		case t == "" || tallyLine.MatchString(t) || contextLine.MatchString(line):
		case warningLine.MatchString(line):
			flush()
			cur = []string{line}
		case cur != nil:
			cur = append(cur, line)
		}
	}
	flush()
	if len(ws) == 0 && strings.TrimSpace(out) != "" {
		ws = []string{strings.TrimSpace(out)}
	}
	return ws
}

// cutWarning bounds a warning's text to MaxWarningLines lines and MaxWarningBytes bytes.
func cutWarning(w string) string {
	lines := strings.Split(w, "\n")
	if len(lines) > MaxWarningLines {
		lines = append(lines[:MaxWarningLines], "...")
	}
	w = strings.Join(lines, "\n")
	if len(w) > MaxWarningBytes {
		w = strings.ToValidUTF8(w[:MaxWarningBytes], "") + " ..."
	}
	return w
}

// DistinctWarnings gathers the compiler warnings of evals (Evaluation.Warnings), each
// warning once, however many builds gave it: a warning is known by its first line
// (position and message), so one that every configuration's build gives is one, and one
// whose text depends on a parameter's value is one per value. They come most frequent
// first, then in the order they first appeared, at most MaxWarnings of them; more is how
// many distinct warnings were left out.
func DistinctWarnings(evals []Evaluation) (ws []Warning, more int) {
	at := map[string]int{} // first line -> index in ws
	for i := range evals {
		if evals[i].Warnings == "" {
			continue
		}
		seen := map[string]bool{}
		for _, w := range splitWarnings(evals[i].Warnings) {
			key, _, _ := strings.Cut(w, "\n")
			if seen[key] {
				continue
			}
			seen[key] = true
			if j, ok := at[key]; ok {
				ws[j].Count++
				continue
			}
			at[key] = len(ws)
			ws = append(ws, Warning{Text: cutWarning(w), Count: 1, First: i})
		}
	}
	slices.SortStableFunc(ws, func(a, b Warning) int { return b.Count - a.Count })
	if len(ws) > MaxWarnings {
		more = len(ws) - MaxWarnings
		ws = ws[:MaxWarnings]
	}
	return ws, more
}
