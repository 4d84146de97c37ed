// Package report writes self-contained HTML reports of tuning runs, recorded spaces and
// strategy benchmarks: one file, figures embedded, readable offline and easy to share.
package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ktune/ktune/internal/outfile"
)

// Page is one report: a title and sections of text, tables and figures.
type Page struct {
	Title     string
	Subtitle  string
	Generated time.Time
	Sections  []Section
}

// Section is a titled part of a page.
type Section struct {
	Title    string
	Callouts []Callout // set apart above the text: the result, a warning, a failure
	Text     []string
	Tables   []Table
	Figures  []Figure
	// Collapsed, when not empty, folds the section's text, tables and figures under a
	// disclosure with this label (its callouts stay in view): for numbers that mean
	// little, shown only to a reader who asks.
	Collapsed string
}

// Callout is a sentence set apart from a section's text.
type Callout struct {
	Kind CalloutKind
	Text string
}

// CalloutKind says how a callout is set apart.
type CalloutKind string

// Callout kinds.
const (
	Result  CalloutKind = "result"  // the headline result
	Warning CalloutKind = "warning" // something to know before reading on: partial, small sample
	Failure CalloutKind = "failure" // the run failed
)

// Table is a captioned table of text cells. Cells stay on one line (a number or a header
// never breaks; a wide table scrolls sideways in its own box) except in the columns Wrap
// names, whose text may wrap at its spaces. A column whose cells are all numbers is
// right-aligned with figures of equal width, so that its numbers line up.
type Table struct {
	Caption string
	// KeyValue makes the table a two-column list of names and values, left-aligned, that
	// fits a narrow screen: a name wraps at its spaces, a value too, and a word of a value
	// longer than the column (a path, a hash) breaks anywhere rather than push the list
	// sideways; the value column is at least 12em wide, so a number does not break.
	KeyValue bool
	Messages bool // the last column holds messages (compiler logs): kept as written, lines and all
	Wrap     []int
	Head     []string
	Rows     [][]string
}

// cell is a table cell as the template writes it.
type cell struct {
	Text  string
	Class string
}

// classes is the class of each column's cells: "num" for a column of numbers, "wrap" for
// a column that may wrap, "" for text on one line.
func (t Table) classes() []string {
	n := len(t.Head)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	cls := make([]string, n)
	for c := range cls {
		switch {
		case slices.Contains(t.Wrap, c), t.KeyValue && c == 1:
			cls[c] = "wrap"
		case t.Messages && c == n-1:
			cls[c] = "msg"
		case !t.KeyValue && numericColumn(t.Rows, c):
			cls[c] = "num"
		}
	}
	return cls
}

// HeadCells is the header row with its columns' classes.
func (t Table) HeadCells() []cell {
	cls := t.classes()
	out := make([]cell, len(t.Head))
	for i, h := range t.Head {
		out[i] = cell{h, cls[i]}
		if cls[i] == "wrap" || cls[i] == "msg" {
			out[i].Class = ""
		}
	}
	return out
}

// BodyRows is the rows with their columns' classes.
func (t Table) BodyRows() [][]cell {
	cls := t.classes()
	out := make([][]cell, len(t.Rows))
	for r, row := range t.Rows {
		out[r] = make([]cell, len(row))
		for i, v := range row {
			out[r][i] = cell{v, cls[i]}
		}
	}
	return out
}

// numericColumn reports whether column c holds numbers only (a dash for a missing one
// counts; a column of dashes does not).
func numericColumn(rows [][]string, c int) bool {
	numbers := 0
	for _, r := range rows {
		if c >= len(r) {
			continue
		}
		switch v := strings.TrimSpace(r[c]); {
		case v == "-" || v == "—" || v == "":
		case isNumber(v):
			numbers++
		default:
			return false
		}
	}
	return numbers > 0
}

// isNumber reports whether s reads as numbers only: one number (maybe with a sign, a
// percent sign or the "x" of a ratio), an interval "[0.1, 0.2]" or a number with its spread
// and count "0.913 (0.111), 25".
func isNumber(s string) bool {
	digit := false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case !strings.ContainsRune(".,-+e%x()[] ", r):
			return false
		}
	}
	return digit
}

// Figure is an image embedded as a data URI, so the page needs no other file. Its title
// is the caption below it, which wraps to the image's width: a caption longer than the
// image does not widen the figure, so figures of one size stand side by side.
type Figure struct {
	Title string
	Src   template.URL
}

// FigureFile reads an SVG or PNG file into a Figure.
func FigureFile(path, title string) (Figure, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Figure{}, err
	}
	mime := "image/png"
	if strings.EqualFold(filepath.Ext(path), ".svg") {
		mime = "image/svg+xml"
	}
	// The data URI is built here from the file's bytes, so it is safe to mark as a URL.
	return Figure{Title: title, Src: template.URL("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data))}, nil
}

// Write renders the page as HTML.
func (p *Page) Write(w io.Writer) error {
	if p.Generated.IsZero() {
		p.Generated = time.Now()
	}
	return pageTemplate.Execute(w, p)
}

// WriteFile renders the page into a file with outfile.Write: a regular file is replaced
// only once the page is complete; a device, a FIFO or a symbolic link is written through.
func (p *Page) WriteFile(path string) error {
	var writeErr error
	err := outfile.Write(path, func(w io.Writer) error {
		writeErr = p.Write(w)
		return writeErr
	})
	if err != nil && err == writeErr {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return err
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; overflow-wrap: break-word; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
.sub { color: #555; margin-top: 0; }
.callout { padding: 0.6em 0.9em; border-left: 0.35em solid #1f77b4; background: #f2f7fb; }
.callout.warning { border-color: #d08c00; background: #fdf6e3; }
.callout.failure { border-color: #c0392b; background: #fbeceb; color: #7a1d14; font-weight: 600; }
.tw { overflow-x: auto; max-width: 100%; margin: 0.8em 0 1.2em; }
table { border-collapse: collapse; font-size: 0.9em; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.3em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; white-space: nowrap; }
th { background: #f3f3f3; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
td.wrap { white-space: normal; overflow-wrap: normal; min-width: 12em; }
td.msg { white-space: pre-wrap; font-family: monospace; font-size: 0.85em; min-width: 24em; }
table.kv td:first-child { font-weight: 600; white-space: normal; }
table.kv td.wrap { max-width: 48em; overflow-wrap: anywhere; }
details > summary { cursor: pointer; color: #555; margin: 0.5em 0; }
figure { display: inline-block; margin: 0.5em 1em 1em 0; vertical-align: top; max-width: 100%; }
figure img { display: block; box-sizing: border-box; max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #444; contain: inline-size; }
footer { margin-top: 3em; color: #777; font-size: 0.8em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Subtitle}}<p class="sub">{{.Subtitle}}</p>{{end}}
{{range .Sections}}
<section>
<h2>{{.Title}}</h2>
{{range .Callouts}}<p class="callout {{.Kind}}">{{.Text}}</p>
{{end}}{{if .Collapsed}}<details><summary>{{.Collapsed}}</summary>
{{end}}{{range .Text}}<p>{{.}}</p>
{{end}}{{range .Tables}}<div class="tw"><table{{if .KeyValue}} class="kv"{{else if .Messages}} class="msgs"{{end}}>
{{if .Caption}}<caption>{{.Caption}}</caption>{{end}}
{{if .Head}}<thead><tr>{{range .HeadCells}}<th{{if .Class}} class="{{.Class}}"{{end}}>{{.Text}}</th>{{end}}</tr></thead>{{end}}
<tbody>
{{range .BodyRows}}<tr>{{range .}}<td{{if .Class}} class="{{.Class}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}{{range .Figures}}<figure><img src="{{.Src}}" alt="{{.Title}}"><figcaption>{{.Title}}</figcaption></figure>
{{end}}{{if .Collapsed}}</details>
{{end}}</section>
{{end}}
<footer>Written by ktune on {{.Generated.Format "2006-01-02 15:04 MST"}}.</footer>
</body>
</html>
`))
