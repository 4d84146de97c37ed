package opencl

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ktune/ktune/device"
)

// buildOptions assembles clBuildProgram's option string: the user's options as written,
// then -D NAME=VALUE for each define in order, then -I for the source file's directory so
// that #include "x.h" finds files next to the kernel. PoCL keeps the quotes of a quoted -I
// path, so there includes work only from directories whose path needs no quoting.
func buildOptions(src device.Source) (string, error) {
	var parts []string
	for _, o := range src.Options {
		if o = strings.TrimSpace(o); o != "" {
			parts = append(parts, o)
		}
	}
	for _, d := range src.Defines {
		if !device.IsIdentifier(d.Name) {
			return "", fmt.Errorf("define %q: the name is not a C identifier", d.Name)
		}
		if strings.ContainsAny(d.Value, "\r\n\x00\"") {
			// Runtimes split the option string each their own way; none carries these
			// through reliably (PoCL mangles an escaped double quote).
			return "", fmt.Errorf("define %s: the value %q holds a line break, NUL or double quote, which build options cannot carry", d.Name, d.Value)
		}
		parts = append(parts, "-D", d.Name+"="+quoteOption(d.Value))
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
