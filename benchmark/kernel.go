package benchmark

import (
	"math"
	"strings"
)

// Kernel is the kernel a space belongs to: its name up to the last '/'. ktune bench names
// a space by its folder and file ("kerneltuner_gemm/RTX_3090": the GEMM kernel recorded on
// an RTX 3090), so the spaces of one folder are one kernel on several devices. A name
// without '/' is a kernel of its own.
func Kernel(space string) string {
	if i := strings.LastIndex(space, "/"); i >= 0 {
		return space[:i]
	}
	return space
}

// Kernels returns the kernels of cells in the order first met, with how many spaces each
// has.
func Kernels(cells []Cell) (kernels []string, spaces map[string]int) {
	spaces = map[string]int{}
	seen := map[string]bool{}
	for _, c := range cells {
		k := Kernel(c.Space)
		if _, ok := spaces[k]; !ok {
			kernels = append(kernels, k)
		}
		if !seen[c.Space] {
			seen[c.Space] = true
			spaces[k]++
		}
	}
	return kernels, spaces
}

// ByKernel pools, per kernel, strategy and budget, the runs on the kernel's spaces into one
// cell whose Space is the kernel: seed 000 reports each kernel over all its GPUs (Fig. 2,
// and the figures of its Table IV averaged over the test GPUs). With the same repeats on
// every space the pooled mean is the mean of the spaces' means; the standard deviation is
// that of the pooled runs, across devices as well as seeds. Cells come out in the order of
// their kernel's, strategy's and budget's first appearance.
func ByKernel(cells []Cell) []Cell {
	type key struct {
		kernel, strategy string
		budget           int
	}
	var order []key
	pooled := map[key]*Cell{}
	var micros = map[key]float64{} // real time summed over runs, µs
	for _, c := range cells {
		k := key{Kernel(c.Space), c.Strategy, c.Budget}
		p := pooled[k]
		if p == nil {
			p = &Cell{Strategy: c.Strategy, Space: k.kernel, Budget: c.Budget}
			pooled[k] = p
			order = append(order, k)
		}
		n := float64(len(c.Fractions))
		p.MeanEvaluations += c.MeanEvaluations * n // sum for now
		micros[k] += c.MicrosPerEvaluation * c.MeanEvaluations * n
		p.Fractions = append(p.Fractions, c.Fractions...)
	}
	out := make([]Cell, 0, len(order))
	for _, k := range order {
		p := pooled[k]
		n := float64(len(p.Fractions))
		if n > 0 {
			if p.MeanEvaluations > 0 {
				p.MicrosPerEvaluation = micros[k] / p.MeanEvaluations
			}
			p.MeanEvaluations /= n
			m, v := meanVar(p.Fractions)
			p.MeanFraction = m
			if n > 1 {
				p.StdFraction = math.Sqrt(v)
			}
		}
		out = append(out, *p)
	}
	return out
}

// KernelSpaces returns the kernels of a benchmark's spaces (their names) in the order
// first met, with how many spaces each has.
func KernelSpaces(spaces []string) (kernels []string, count map[string]int) {
	count = map[string]int{}
	for _, sp := range spaces {
		k := Kernel(sp)
		if count[k] == 0 {
			kernels = append(kernels, k)
		}
		count[k]++
	}
	return kernels, count
}

// CompleteKernelCells pools cells per kernel (ByKernel) for every kernel with several
// spaces among spaces, the names of all the benchmark's spaces, finished or not (nil: the
// spaces of cells), and keeps only the pooled cells with runs on every one of the kernel's
// spaces. An interrupted or resumed benchmark may lack some: a mean over fewer devices is
// not the kernel's, and points of one curve over different devices are not comparable.
// The kernel tables, the JSON and the kernel curves all show these cells.
func CompleteKernelCells(cells []Cell, spaces []string) []Cell {
	if spaces == nil {
		seen := map[string]bool{}
		for _, c := range cells {
			if !seen[c.Space] {
				seen[c.Space] = true
				spaces = append(spaces, c.Space)
			}
		}
	}
	_, count := KernelSpaces(spaces)
	type key struct {
		kernel, strategy string
		budget           int
	}
	covered := map[key]map[string]bool{}
	for _, c := range cells {
		k := key{Kernel(c.Space), c.Strategy, c.Budget}
		if covered[k] == nil {
			covered[k] = map[string]bool{}
		}
		covered[k][c.Space] = true
	}
	var out []Cell
	for _, kc := range ByKernel(cells) {
		n := count[kc.Space]
		if n > 1 && len(covered[key{kc.Space, kc.Strategy, kc.Budget}]) == n {
			out = append(out, kc)
		}
	}
	return out
}
