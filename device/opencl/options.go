package opencl

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ktune/ktune/device"
)

// buildOptions assembles clBuildProgram's option string: the user's options as written,
// then -I for the source file's directory so that #include "x.h" finds files next to the
// kernel. PoCL keeps the quotes of a quoted -I path, so there includes work only from
// directories whose path needs no quoting. The defines go in the source (defineLines),
// not here: a -D option reaches the headers the runtime includes before the program too,
// and a parameter named as one of their identifiers broke them.
func buildOptions(src device.Source) (string, error) {
	var parts []string
	for _, o := range src.Options {
		if o = strings.TrimSpace(o); o != "" {
			parts = append(parts, o)
		}
	}
	if src.File != "" {
		dir := filepath.Dir(src.File)
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if strings.ContainsAny(dir, "\r\n\x00\"") {
			return "", fmt.Errorf("include directory %q holds a line break, NUL or double quote, which build options cannot carry", dir)
		}
		parts = append(parts, "-I", quoteOption(dir))
	}
	return strings.Join(parts, " "), nil
}

// defineLines is the text that defines src's names, in order, ahead of its code, as
// Kernel Tuner writes them: after the runtime's own headers (PoCL's opencl-c.h declares
// vload and vstore with a parameter p, which "-D p=2" turned into a syntax error). Code
// that does not start with a #line directive (the spec's always does) gets one naming
// its file (or "<code>"), so that the compiler's line numbers are still the code's.
func defineLines(src device.Source) (string, error) {
	if len(src.Defines) == 0 {
		return "", nil
	}
	var b strings.Builder
	for _, d := range src.Defines {
		if !device.IsIdentifier(d.Name) {
			return "", fmt.Errorf("define %q: the name is not a C identifier", d.Name)
		}
		if strings.ContainsAny(d.Value, "\r\n\x00") {
			return "", fmt.Errorf("define %s: the value %q holds a line break or NUL, which a #define cannot hold", d.Name, d.Value)
		}
		if strings.HasSuffix(d.Value, `\`) {
			return "", fmt.Errorf("define %s: the value %q ends in a backslash, which would continue the #define onto the next line", d.Name, d.Value)
		}
		fmt.Fprintf(&b, "#define %s %s\n", d.Name, d.Value)
	}
	if !strings.HasPrefix(src.Code, "#line ") {
		// The directive names the code, so that a runtime that follows it reports
		// "<code>:2:14" and lineNotes can tell one that ignores it (NVIDIA's driver
		// counts the defines too) and say where its positions are.
		name := codeName
		if src.File != "" && !strings.ContainsAny(src.File, "\r\n\x00\"\\") {
			name = src.File
		}
		fmt.Fprintf(&b, "#line 1 \"%s\"\n", name)
	}
	return b.String(), nil
}

// codeName names code without a file of its own in the #line directive ahead of it.
const codeName = "<code>"

// quoteOption protects a value that the runtime would otherwise split or unescape:
// runtimes tokenize the option string much as a shell does (PoCL splits at white space,
// groups double-quoted text and drops a backslash before the next character), so a value
// with white space, a quote or a backslash goes in double quotes with its backslashes
// doubled. Other values pass unchanged, since a plain "-D N=V" is what every runtime
// understands. The caller has rejected double quotes.
func quoteOption(v string) string {
	if !strings.ContainsAny(v, " \t\v\f'\\") {
		return v
	}
	return `"` + strings.ReplaceAll(v, `\`, `\\`) + `"`
}
