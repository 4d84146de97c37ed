package analysis

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/ktune/ktune/landscape"
	"github.com/ktune/ktune/sensitivity"
)

// FigureOptions say which figures to draw.
type FigureOptions struct {
	// GraphNodes is the largest space whose fitness flow graph is drawn (Fig. 6); 0 draws
	// none. Drawing lays the graph out by force simulation, which grows with the square of
	// the nodes.
	GraphNodes int
	// Note, when set, is told of each figure left out and why: a flow graph above
	// GraphNodes, the minima figure where no space has a fraction of optimum, the
	// significance and sensitivity figures where the objective is constant (or the
	// indices could not be estimated).
	Note func(string)
}

// WriteFigures draws the figures of the results into dir, as SVG and PNG, and returns the
// files written: for all results together the local minima's fraction of optimal fitness
// (Fig. 3; left out when no result has one) and the proportion of centrality (Fig. 7);
// per result the fitness flow graph of a small space (Fig. 6), the significance (when a
// correlation is defined) and the sensitivity charts (seed 004 Section 5.3).
//
// Each result's figures are named after it (FileName); two results whose names make the
// same file name (a/RTX 3090 and a/RTX_3090) get -2, -3, ... after the later ones', so
// that no figure overwrites another and every path returned is a file written.
func WriteFigures(ctx context.Context, results []*Result, dir string, o FigureOptions) ([]string, error) {
	note := func(format string, args ...any) {
		if o.Note != nil {
			o.Note(fmt.Sprintf(format, args...))
		}
	}
	var files []string
	var named []landscape.Named
	for _, r := range results {
		if r.Landscape != nil {
			named = append(named, landscape.Named{Name: r.Name, A: r.Landscape, L: r.land})
		}
	}
	if len(named) > 0 {
		// The minima figure needs a space with a fraction of optimum (not every objective
		// has one, Analysis.FractionNote); it names the spaces it leaves out.
		if slices.ContainsFunc(named, func(n landscape.Named) bool { return len(n.A.MinimaFractions) > 0 }) {
			f, err := landscape.PlotMinima(named, dir, "minima")
			if err != nil {
				return files, fmt.Errorf("local minima figure: %w", err)
			}
			files = append(files, f...)
		} else {
			note("the local minima figure (minima) is left out: no space has a fraction of optimum (see each space's note)")
		}
		f, err := landscape.PlotCentrality(named, dir, "centrality")
		if err != nil {
			return files, fmt.Errorf("proportion of centrality figure: %w", err)
		}
		files = append(files, f...)
	}
	used := map[string]bool{}
	for _, r := range results {
		base := FileName(r.Name)
		for k := 2; used[base]; k++ {
			base = fmt.Sprintf("%s-%d", FileName(r.Name), k)
		}
		used[base] = true
		if r.Landscape != nil && r.land != nil && o.GraphNodes > 0 && r.land.Space.Len() > o.GraphNodes {
			note("%s: the flow graph figure (ffg-%s) is left out: its %d configurations are more than --graph-nodes %d (its layout grows with the square of the nodes); give --graph-nodes %d to draw it",
				r.Name, base, r.land.Space.Len(), o.GraphNodes, r.land.Space.Len())
		}
		if r.Landscape != nil && r.land != nil && o.GraphNodes > 0 && r.land.Space.Len() <= o.GraphNodes {
			g, err := landscape.FlowGraph(ctx, r.land, r.nb)
			if err != nil {
				return files, err
			}
			f, err := landscape.PlotFlowGraph(ctx, landscape.Named{Name: r.Name, A: r.Landscape, L: r.land}, g, dir, "ffg-"+base, o.GraphNodes)
			if err != nil {
				return files, fmt.Errorf("%s: flow graph figure: %w", r.Name, err)
			}
			files = append(files, f...)
		}
		// with no correlation defined (a constant objective) there is nothing to draw, and
		// the figure would call every parameter constant
		if slices.ContainsFunc(r.Significance, func(c sensitivity.Correlation) bool { return !math.IsNaN(c.Pearson) }) {
			f, err := plotSignificance(r.Significance, r.Objective, r.Maximize, r.Name, dir, "significance-"+base)
			if err != nil {
				return files, fmt.Errorf("%s: significance figure: %w", r.Name, err)
			}
			files = append(files, f...)
		} else if len(r.Significance) > 0 {
			note("%s: the significance figure (significance-%s) is left out: no correlation is defined (the objective, or every parameter, is constant over the valid configurations)", r.Name, base)
		}
		if r.Sobol == nil && len(r.Significance) > 0 {
			note("%s: the sensitivity figure (sensitivity-%s) is left out: there are no Sobol indices (the analysis's warnings say why)", r.Name, base)
		}
		for _, s := range []struct {
			name string
			s    *sensitivity.Sobol
		}{{"sensitivity-", r.Sobol}, {"saltelli-", r.Saltelli}} {
			if s.s == nil {
				continue
			}
			f, err := plotSensitivity(s.s, constantIn(r.Significance), r.Name, dir, s.name+base)
			if err != nil {
				return files, fmt.Errorf("%s: sensitivity figure: %w", r.Name, err)
			}
			files = append(files, f...)
		}
	}
	return files, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// FileName turns a result's name into a file name part: "kerneltuner_gemm/RTX 3090"
// becomes "kerneltuner_gemm-RTX_3090".
func FileName(name string) string {
	name = strings.ReplaceAll(name, "/", "-")
	name = unsafeChars.ReplaceAllString(name, "_")
	if name == "" {
		return "space"
	}
	return name
}

// constantIn says which parameters the significance found constant (no correlation can
// be computed: one value among the data).
func constantIn(cs []sensitivity.Correlation) func(string) bool {
	constant := map[string]bool{}
	for _, c := range cs {
		if math.IsNaN(c.Pearson) {
			constant[c.Param] = true
		}
	}
	return func(p string) bool { return constant[p] }
}
