package report

import (
	"bytes"
	"encoding/base64"
	stdhtml "html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPageEscapesTextAndEmbedsFigures(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "f.svg")
	content := `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>`
	if err := os.WriteFile(svg, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	fig, err := FigureFile(svg, "a <figure>")
	if err != nil {
		t.Fatal(err)
	}
	p := &Page{Title: `kernel <script>alert(1)</script>`, Sections: []Section{{
		Title: "S", Text: []string{"x & y"},
		Tables:  []Table{{Caption: "T", Head: []string{"a", "b"}, Rows: [][]string{{"<1>", "2"}}}},
		Figures: []Figure{fig},
	}}}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	html := stdhtml.UnescapeString(b.String()) // attribute values may carry entities (+ as &#43;)
	if raw := b.String(); strings.Contains(raw, "<script>") || !strings.Contains(raw, "kernel &lt;script&gt;") || !strings.Contains(raw, "x &amp; y") || !strings.Contains(raw, "<td>&lt;1&gt;</td>") {
		t.Errorf("text not escaped:\n%s", html)
	}
	want := `src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString([]byte(content)) + `"`
	if !strings.Contains(html, want) {
		t.Errorf("figure not embedded as a data URI:\n%s", html)
	}
}

func TestWriteFileReplacesOnlyWhenComplete(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.html")
	if err := (&Page{Title: "t"}).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "<title>t</title>") {
		t.Errorf("page not written: %s", data)
	}
}
