package minimize

import (
	"math"
	"slices"
)

// COBYLA minimises f on the unit cube from x0 by the linear-interpolation trust-region
// method of Powell's COBYLA (Powell 1994), with the box as the only constraint. Since the
// cube is the only constraint, and it is handled exactly in the step, COBYLA's linear
// models of constraints and its merit function are not needed; what remains is:
//
//   - A simplex of d+1 points, initially x0 and x0 + ρ along each axis (minus ρ where plus
//     would leave the cube), ρ = s.Step at most 0.5. Its best vertex is y0.
//   - Each iteration interpolates f at the vertices by a linear model f(y0) + g·(y - y0).
//     Failed vertices (+Inf) enter the model at the largest finite vertex value, so the
//     model never expects an improvement towards a failure; when no vertex is finite the
//     model is flat.
//   - The trust-region step minimises the model over the ball |s| ≤ ρ intersected with the
//     cube, exactly: s = clip(-τ g) to the cube for the τ that puts s on the sphere (or
//     the cube's corner when that lies inside the ball). When the step is shorter than ρ/2
//     it is not taken.
//   - A taken step replaces the vertex whose replacement keeps the simplex's volume
//     largest: the i maximising |s·w_i|, where the w_i are the dual vectors of the edges
//     (w_i·(y_j - y0) = δ_ij, the columns of the inverse of the edge matrix), since the
//     volume changes by exactly that factor. The step was a success when the actual
//     decrease is at least a tenth of the model's predicted decrease.
//   - After a failed or skipped step the simplex's geometry is checked, with COBYLA's
//     constants: every edge y_i - y0 at most 2.1 ρ long and every vertex at least 0.25 ρ
//     from the face opposite it (that distance is 1/|w_i|). An unacceptable simplex gets
//     a geometry step: its worst vertex (the longest edge beyond 2.1 ρ, else the one
//     closest to its face) moves to y0 ± ρ w_i/|w_i|, on the side that is in the cube
//     with the lower model value (an axis step of ρ where neither side is). An
//     acceptable one has ρ halved (to s.XTol when within 1.5 times of it); when ρ is
//     already s.XTol the method has converged.
//
// Like Powell's COBYLA it never increases ρ, so it crawls along curved valleys. Not in
// COBYLA: when the edges become numerically dependent (vertices clamped onto a face of
// the cube) the simplex is rebuilt as a fresh axis simplex of radius ρ around y0. s.FTol
// is not used.
func COBYLA(f Objective, x0 []float64, s Settings) (Result, error) {
	x := start(x0)
	d := len(x)
	s = s.withDefaults(d)
	t := newTracker(f, d, s.MaxEvals)
	return t.result(cobyla(t, x, s))
}

// COBYLA's geometry constants: the smallest distance of a vertex to its opposite face and
// the longest edge from the best vertex, in units of ρ, and the smallest useful step.
const (
	cobylaFace  = 0.25
	cobylaEdge  = 2.1
	cobylaShort = 0.5
)

func cobyla(t *tracker, x0 []float64, s Settings) error {
	d := len(x0)
	rhoEnd := min(s.XTol, 0.5)
	rho := max(min(s.Step, 0.5), rhoEnd)
	pts := make([][]float64, d+1)
	val := make([]float64, d+1)
	edges := make([][]float64, d)
	inv := make([][]float64, d) // inv[i] = w_{i+1}: edges[j]·inv[i] = δ_ij
	for i := range edges {
		edges[i] = make([]float64, d)
		inv[i] = make([]float64, d)
	}
	g := make([]float64, d)
	step := make([]float64, d)
	trial := make([]float64, d)

	// simplex evaluates the axis simplex of radius rho around the best vertex, from scratch
	// at the start and again when the edges have become linearly dependent.
	simplex := func(centre []float64, fc float64, known bool) error {
		pts[0] = append(pts[0][:0], centre...)
		val[0] = fc
		if !known {
			v, err := t.eval(pts[0])
			if err != nil {
				return err
			}
			val[0] = v
		}
		for i := 1; i <= d; i++ {
			pts[i] = append(pts[i][:0], pts[0]...)
			if k := i - 1; pts[0][k]+rho <= 1 {
				pts[i][k] += rho
			} else {
				pts[i][k] -= rho
			}
			v, err := t.eval(pts[i])
			if err != nil {
				return err
			}
			val[i] = v
		}
		return nil
	}
	if err := simplex(x0, 0, false); err != nil {
		return err
	}
	check := false // the last step failed or was skipped: check geometry or reduce rho
	for {
		// the best vertex first; on ties the current y0 stays
		b := 0
		for i := range val {
			if val[i] < val[b] {
				b = i
			}
		}
		pts[0], pts[b] = pts[b], pts[0]
		val[0], val[b] = val[b], val[0]
		for i := range edges {
			for k := range edges[i] {
				edges[i][k] = pts[i+1][k] - pts[0][k]
			}
		}
		if !invert(edges, inv) {
			// degenerate (points collapsed onto a face of the cube): start a fresh simplex
			// around the best vertex
			if err := simplex(pts[0], val[0], true); err != nil {
				return err
			}
			continue
		}
		model(val, inv, g)

		if check {
			check = false
			if j := badVertex(edges, inv, rho); j >= 0 {
				geometryStep(pts[0], inv[j], g, rho, trial)
				v, err := t.eval(trial)
				if err != nil {
					return err
				}
				copy(pts[j+1], trial)
				val[j+1] = v
				continue
			}
			if rho <= rhoEnd {
				return nil
			}
			rho /= 2
			if rho <= 1.5*rhoEnd {
				rho = rhoEnd
			}
			continue
		}

		trustStep(g, pts[0], rho, step)
		if norm(step) < cobylaShort*rho {
			check = true
			continue
		}
		predicted := -dot(g, step)
		for k := range trial {
			trial[k] = pts[0][k] + step[k]
		}
		v, err := t.eval(trial)
		if err != nil {
			return err
		}
		// the vertex whose replacement by trial keeps the simplex fullest
		j, vol := 0, -1.0
		for i := range inv {
			if a := math.Abs(dot(step, inv[i])); a > vol {
				j, vol = i, a
			}
		}
		f0 := val[0]
		copy(pts[j+1], trial)
		val[j+1] = v
		switch {
		case !(v < f0):
			check = true
		case math.IsInf(f0, 1):
		case predicted > 0 && f0-v < 0.1*predicted:
			check = true
		}
	}
}

// model sets g to the gradient of the linear function through the vertex values, failed
// vertices taken at the largest finite vertex value: the model never expects an
// improvement towards a failure, and a penalty above that (the finite spread added) did
// no better on the recorded tuning spaces while it swamped the slopes along the edge of a
// failed region.
func model(val []float64, inv [][]float64, g []float64) {
	worst := math.Inf(-1)
	for _, v := range val {
		if !math.IsInf(v, 1) {
			worst = max(worst, v)
		}
	}
	clear(g)
	if math.IsInf(worst, -1) { // nothing finite: flat
		return
	}
	at := func(v float64) float64 { return min(v, worst) }
	f0 := at(val[0])
	for i, w := range inv {
		df := at(val[i+1]) - f0
		for k := range g {
			g[k] += df * w[k]
		}
	}
}

// trustStep sets s to the minimiser of g·s over |s| ≤ rho with x+s in the cube: s(τ) =
// clip(-τ g) to the cube is the minimiser on the sphere of its own length, and its length
// grows with τ, so τ is found by walking the breakpoints where coordinates reach the cube.
func trustStep(g, x []float64, rho float64, s []float64) {
	type bp struct{ tau, room, g2 float64 } // a coordinate reaches the cube at tau after room
	var bps []bp
	free := 0.0 // sum of g_k^2 over coordinates not yet at the cube
	for k, gk := range g {
		var room float64
		switch {
		case gk > 0:
			room = x[k]
		case gk < 0:
			room = 1 - x[k]
		default:
			continue
		}
		if room <= 0 {
			continue
		}
		free += gk * gk
		bps = append(bps, bp{room / math.Abs(gk), room, gk * gk})
	}
	slices.SortFunc(bps, func(a, b bp) int {
		switch {
		case a.tau < b.tau:
			return -1
		case a.tau > b.tau:
			return 1
		}
		return 0
	})
	clipped := 0.0 // sum of squared lengths of the coordinates at the cube
	tau := math.Inf(1)
	for _, b := range bps {
		if b.tau*b.tau*free+clipped >= rho*rho {
			tau = math.Sqrt((rho*rho - clipped) / free)
			break
		}
		clipped += b.room * b.room
		free = max(free-b.g2, 0)
	}
	for k, gk := range g {
		v := -tau * gk
		if gk == 0 {
			v = 0
		}
		s[k] = min(max(v, -x[k]), 1-x[k])
	}
}

// badVertex returns the edge index (vertex - 1) to improve by a geometry step, or -1 when
// the simplex is acceptable: first the longest edge above cobylaEdge ρ, else the vertex
// closest to its opposite face when closer than cobylaFace ρ.
func badVertex(edges, inv [][]float64, rho float64) int {
	j, longest := -1, cobylaEdge*rho
	for i, e := range edges {
		if l := norm(e); l > longest {
			j, longest = i, l
		}
	}
	if j >= 0 {
		return j
	}
	closest := cobylaFace * rho
	for i, w := range inv {
		if dist := 1 / norm(w); dist < closest {
			j, closest = i, dist
		}
	}
	return j
}

// geometryStep sets dst to the replacement of the vertex whose dual row is w: the best
// vertex y0 moved by rho along ±w (perpendicular to the opposite face), on the side in the
// cube with the lower model value; when neither side is in the cube, rho along the axis
// where w is largest, which keeps the distance to the face at least rho/sqrt(d).
func geometryStep(y0, w, g []float64, rho float64, dst []float64) {
	scale := rho / norm(w)
	sign := 1.0
	if dot(g, w) > 0 {
		sign = -1
	}
	for _, sg := range []float64{sign, -sign} {
		in := true
		for k := range dst {
			dst[k] = y0[k] + sg*scale*w[k]
			in = in && dst[k] >= 0 && dst[k] <= 1
		}
		if in {
			return
		}
	}
	k := 0
	for i := range w {
		if math.Abs(w[i]) > math.Abs(w[k]) {
			k = i
		}
	}
	copy(dst, y0)
	up, down := y0[k]+rho <= 1, y0[k]-rho >= 0
	if up && (!down || g[k] <= 0) {
		dst[k] += rho
	} else {
		dst[k] -= rho
	}
	clamp(dst)
}

// invert sets inv to the rows w_i with a_j·w_i = δ_ij (the columns of a's inverse, stored
// as rows), by Gauss-Jordan elimination with partial pivoting. It reports false when a is
// numerically singular.
func invert(a, inv [][]float64) bool {
	n := len(a)
	m := make([][]float64, n) // [a | I], reduced to [I | a^-1]
	scale := 0.0
	for i := range a {
		m[i] = make([]float64, 2*n)
		copy(m[i], a[i])
		m[i][n+i] = 1
		for _, v := range a[i] {
			scale = max(scale, math.Abs(v))
		}
	}
	if scale == 0 {
		return false
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) <= 1e-12*scale {
			return false
		}
		m[c], m[p] = m[p], m[c]
		piv := m[c][c]
		for k := range m[c] {
			m[c][k] /= piv
		}
		for r := range n {
			if r == c || m[r][c] == 0 {
				continue
			}
			fr := m[r][c]
			for k := range m[r] {
				m[r][k] -= fr * m[c][k]
			}
		}
	}
	// m[:, n:] is a^-1; w_i is its column i
	for i := range inv {
		for k := range inv[i] {
			inv[i][k] = m[k][n+i]
		}
	}
	return true
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }
