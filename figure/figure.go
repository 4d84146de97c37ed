// Package figure writes ktune's plots: every figure goes out as SVG (for reports and
// papers) and PNG (for a quick look), under one name.
package figure

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Save writes p, w by h, as dir/name.svg and dir/name.png, creating dir, and returns the
// paths written (those written before a failure too).
func Save(p *plot.Plot, w, h vg.Length, dir, name string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, ext := range []string{".svg", ".png"} {
		path := filepath.Join(dir, name+ext)
		if err := p.Save(w, h, path); err != nil {
			return files, fmt.Errorf("write %s: %w", path, err)
		}
		files = append(files, path)
	}
	return files, nil
}
