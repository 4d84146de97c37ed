package opencl

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// lineDirective is a #line directive with a file name, as package spec writes them before
// every source file and inline code.
var lineDirective = regexp.MustCompile(`^\s*#\s*line\s+([0-9]+)\s+("(?:[^"\\]|\\.)*")\s*$`)

// logPosition is a position in a build log: "<kernel>:3:10: error: ...".
var logPosition = regexp.MustCompile(`(?m)^([^\s:]+):([0-9]+):([0-9]+): `)

// lineNotes says where in the user's files the positions of a build log are, for runtimes
// that ignore #line and count lines of the program text as given (NVIDIA's driver and
// some PoCL builds name it "<kernel>"): "" when the log names a file of the directives
// already, or the code has none.
func lineNotes(code, log string) string {
	type directive struct {
		at, line int // the directive's own line in code; the line it gives the next one
		file     string
	}
	var ds []directive
	for i, l := range strings.Split(code, "\n") {
		m := lineDirective.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, err1 := strconv.Atoi(m[1])
		file, err2 := strconv.Unquote(m[2])
		if err1 != nil || err2 != nil {
			continue
		}
		if strings.Contains(log, file) {
			return "" // the runtime follows the directives
		}
		ds = append(ds, directive{i + 1, n, file})
	}
	if len(ds) == 0 {
		return ""
	}
	var notes []string
	seen := map[string]bool{}
	for _, m := range logPosition.FindAllStringSubmatch(log, -1) {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		var d *directive
		for i := range ds {
			if ds[i].at < n {
				d = &ds[i]
			}
		}
		key := m[1] + ":" + m[2]
		if d == nil || seen[key] {
			continue
		}
		seen[key] = true
		notes = append(notes, fmt.Sprintf("%s:%s:%s is %s:%d:%s", m[1], m[2], m[3], d.file, d.line+n-d.at-1, m[3]))
		if len(notes) == 5 {
			break
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return "note: this OpenCL runtime ignores #line, so its positions count lines of the program as ktune gave it: " + strings.Join(notes, "; ")
}
