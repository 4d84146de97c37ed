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
	"strings"
	"time"
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
	Title   string
	Text    []string
	Tables  []Table
	Figures []Figure
}

// Table is a captioned table of text cells.
type Table struct {
	Caption  string
	KeyValue bool // a two-column list of names and values: left-aligned, values may wrap
	Messages bool // the last column holds messages (compiler logs): kept as written, lines and all
	Head     []string
	Rows     [][]string
}

// Figure is an image embedded as a data URI, so the page needs no other file.
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

// WriteFile renders the page into a file, replacing it only once complete.
func (p *Page) WriteFile(path string) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := p.Write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.8em 0 1.2em; font-size: 0.9em; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.3em; }
table { max-width: 100%; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; overflow-wrap: anywhere; }
table.kv td { text-align: left; }
table.kv td:first-child { white-space: nowrap; font-weight: 600; }
table.msgs td, table.msgs th { text-align: left; }
table.msgs td:nth-child(-n+2) { white-space: nowrap; overflow-wrap: normal; }
table.msgs td:last-child { white-space: pre-wrap; font-family: monospace; font-size: 0.85em; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
figure { display: inline-block; margin: 0.5em 1em 1em 0; vertical-align: top; }
figure img { max-width: 100%; width: 34em; border: 1px solid #eee; }
figure { max-width: 34em; }
figcaption { font-size: 0.85em; color: #444; }
footer { margin-top: 3em; color: #777; font-size: 0.8em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Subtitle}}<p class="sub">{{.Subtitle}}</p>{{end}}
{{range .Sections}}
<section>
<h2>{{.Title}}</h2>
{{range .Text}}<p>{{.}}</p>
{{end}}{{range .Tables}}<table{{if .KeyValue}} class="kv"{{else if .Messages}} class="msgs"{{end}}>
{{if .Caption}}<caption>{{.Caption}}</caption>{{end}}
{{if .Head}}<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>{{end}}
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}{{range .Figures}}<figure><img src="{{.Src}}" alt="{{.Title}}"><figcaption>{{.Title}}</figcaption></figure>
{{end}}</section>
{{end}}
<footer>Written by ktune on {{.Generated.Format "2006-01-02 15:04 MST"}}.</footer>
</body>
</html>
`))
