package space

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// group is a set of parameters connected by restrictions, with its valid combinations
// stored as a trie: level l holds one node per distinct valid prefix of length l+1.
type group struct {
	params []int      // space parameter indices, in level order
	val    [][]uint16 // val[l][node]: value index of params[l]
	parent [][]uint32 // parent[l][node]: node at level l-1 (nil for level 0)
	first  [][]uint32 // first[l][node]: first child at level l+1; one extra sentinel entry (nil for the last level)
	count  int

	// leaves holds every valid combination's value indices, combination i at
	// [i*len(params), (i+1)*len(params)), made on first use by at and atWithin: one read
	// of a few adjacent bytes instead of a walk up the trie that touches two arrays per
	// level, far apart (the random repairs of the unit-cube strategies spent a third of
	// their time there). Left nil above maxLeafTable entries; the walk serves then.
	leavesOnce sync.Once
	leaves     []uint16
}

// maxLeafTable is the most entries (combinations times parameters) a group's leaf table
// may have: 8 Mi entries, 16 MiB.
const maxLeafTable = 8 << 20

// leafTable returns g.leaves, made on first use; nil for a group too large for one.
func (g *group) leafTable() []uint16 {
	g.leavesOnce.Do(func() {
		n := len(g.params)
		if n == 0 || g.count > maxLeafTable/n {
			return
		}
		t := make([]uint16, g.count*n)
		for i := range g.count {
			node := uint32(i)
			for l := n - 1; l >= 0; l-- {
				t[i*n+l] = g.val[l][node]
				if l > 0 {
					node = g.parent[l][node]
				}
			}
		}
		g.leaves = t
	})
	return g.leaves
}

func (g *group) at(i int, dst Config) {
	if t := g.leafTable(); t != nil {
		n := len(g.params)
		for l, v := range t[i*n : (i+1)*n] {
			dst[g.params[l]] = int(v)
		}
		return
	}
	g.walkAt(i, dst)
}

// walkAt is at by the walk up the trie.
func (g *group) walkAt(i int, dst Config) {
	node := uint32(i)
	for l := len(g.params) - 1; l >= 0; l-- {
		dst[g.params[l]] = int(g.val[l][node])
		if l > 0 {
			node = g.parent[l][node]
		}
	}
}

// atWithin is at that also sums weight[p] * |dst[p] - c[p]| over the group's parameters,
// stopping (dst partly written) as soon as the sum passes limit; ok says it did not.
func (g *group) atWithin(i int, c, dst Config, weight []float64, limit float64) (d float64, ok bool) {
	if t := g.leafTable(); t != nil {
		n := len(g.params)
		leaf := t[i*n : (i+1)*n]
		for l := n - 1; l >= 0; l-- { // the walk's order: the same sums, the same early stop
			p := g.params[l]
			v := int(leaf[l])
			dst[p] = v
			if v != c[p] {
				if d += math.Abs(float64(v-c[p])) * weight[p]; d > limit {
					return d, false
				}
			}
		}
		return d, true
	}
	return g.walkAtWithin(i, c, dst, weight, limit)
}

// walkAtWithin is atWithin by the walk up the trie.
func (g *group) walkAtWithin(i int, c, dst Config, weight []float64, limit float64) (d float64, ok bool) {
	node := uint32(i)
	for l := len(g.params) - 1; l >= 0; l-- {
		p := g.params[l]
		v := int(g.val[l][node])
		dst[p] = v
		if v != c[p] {
			if d += math.Abs(float64(v-c[p])) * weight[p]; d > limit {
				return d, false
			}
		}
		if l > 0 {
			node = g.parent[l][node]
		}
	}
	return d, true
}

func (g *group) index(c Config) (int, bool) {
	lo, hi := 0, len(g.val[0])
	node := 0
	for l, p := range g.params {
		want := uint16(c[p])
		vals := g.val[l]
		a, b := lo, hi
		for a < b {
			m := int(uint(a+b) >> 1)
			if vals[m] < want {
				a = m + 1
			} else {
				b = m
			}
		}
		if a == hi || vals[a] != want {
			return 0, false
		}
		node = a
		if l < len(g.params)-1 {
			lo, hi = int(g.first[l][node]), int(g.first[l][node+1])
		}
	}
	return node, true
}

// prefixRanges stores in rng[l] the range of trie nodes at level l that follow c's values
// of the levels above l, for every level down to the first whose value does not follow
// them, and returns how many levels it filled: below those, c's prefix is not in the trie,
// so no change of one parameter there makes the combination valid.
func (g *group) prefixRanges(c Config, rng [][2]int) int {
	a, b := 0, len(g.val[0])
	for l := range g.params {
		rng[l] = [2]int{a, b}
		if l == len(g.params)-1 {
			return l + 1
		}
		node, ok := findChild(g.val[l], a, b, uint16(c[g.params[l]]))
		if !ok {
			return l + 1
		}
		a, b = int(g.first[l][node]), int(g.first[l][node+1])
	}
	return len(g.params)
}

// movesIn is moves with the node range of level l given.
func (g *group) movesIn(c Config, l, a, b int, fn func(w int)) {
	vals := g.val[l]
	last := len(g.params) - 1
	v := c[g.params[l]]
	for node := a; node < b; node++ {
		w := int(vals[node])
		if w == v {
			continue
		}
		if l == last || g.suffixValid(c, l, node) {
			fn(w)
		}
	}
}

// moves calls fn with every value index w != c[p], between lo and hi inclusive, of the
// parameter p at level l such that c with p set to w is a valid combination of the group.
// It walks c's prefix above level l once and then descends, for each value the trie has
// there, through c's values below it: the trie's own children are the candidates, so
// values that cannot follow c's prefix cost nothing. fn may change c[p] (only).
func (g *group) moves(c Config, l, lo, hi int, fn func(w int)) {
	a, b := 0, len(g.val[0])
	for k := 0; k < l; k++ {
		node, ok := findChild(g.val[k], a, b, uint16(c[g.params[k]]))
		if !ok {
			return
		}
		a, b = int(g.first[k][node]), int(g.first[k][node+1])
	}
	vals := g.val[l]
	last := len(g.params) - 1
	v := c[g.params[l]]
	for node := a; node < b; node++ {
		w := int(vals[node])
		if w < lo || w == v {
			continue
		}
		if w > hi {
			break
		}
		if l == last || g.suffixValid(c, l, node) {
			fn(w)
		}
	}
}

// suffixValid reports whether c's values of the levels below l follow node (at level l)
// in the trie.
func (g *group) suffixValid(c Config, l, node int) bool {
	for k := l + 1; k < len(g.params); k++ {
		a, b := int(g.first[k-1][node]), int(g.first[k-1][node+1])
		var ok bool
		if node, ok = findChild(g.val[k], a, b, uint16(c[g.params[k]])); !ok {
			return false
		}
	}
	return true
}

// findChild returns the position of want among vals[a:b], which are sorted.
func findChild(vals []uint16, a, b int, want uint16) (int, bool) {
	hi := b
	for a < b {
		m := int(uint(a+b) >> 1)
		if vals[m] < want {
			a = m + 1
		} else {
			b = m
		}
	}
	return a, a < hi && vals[a] == want
}

// children returns the node range at level l+1 below node (at level l); for l == -1 the
// root range.
func (g *group) children(l, node int) (int, int) {
	if l < 0 {
		return 0, len(g.val[0])
	}
	return int(g.first[l][node]), int(g.first[l][node+1])
}

func (s *Space) build(ctx context.Context, o BuildOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n := len(s.params)
	// Union-find over parameters connected by a restriction.
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, r := range s.restrictions {
		ps := r.Params()
		if holdsAlways(r) {
			continue // it ties nothing: the parameters it reads may stay apart
		}
		if len(ps) == 0 {
			// A constant restriction: either it removes everything or nothing.
			if !r.Holds(&Bindings{}) {
				return fmt.Errorf("restriction %q is always false: %w", r.Source(), ErrEmpty)
			}
			continue
		}
		for _, p := range ps[1:] {
			a, b := find(ps[0]), find(p)
			if a != b {
				parent[b] = a
			}
		}
	}
	byRoot := map[int]int{}
	var members [][]int
	for p := 0; p < n; p++ {
		r := find(p)
		g, ok := byRoot[r]
		if !ok {
			g = len(members)
			byRoot[r] = g
			members = append(members, nil)
		}
		members[g] = append(members[g], p)
	}
	groupRestr := make([][]Restriction, len(members))
	for _, r := range s.restrictions {
		if ps := r.Params(); len(ps) > 0 && !holdsAlways(r) {
			g := byRoot[find(ps[0])]
			groupRestr[g] = append(groupRestr[g], r)
		}
	}
	s.groupOf = make([]int, n)
	s.levelOf = make([]int, n)
	b := &Bindings{Num: make([]float64, n), Str: make([]string, n)}
	s.size = 1
	// progress weighs each group by the product of its values
	var total float64
	weight := make([]float64, len(members))
	for g, ps := range members {
		weight[g] = 1
		for _, p := range ps {
			weight[g] *= float64(len(s.params[p].Values))
		}
		total += weight[g]
	}
	mem := &memoryBudget{max: o.MaxBytes}
	var before float64
	for g, ps := range members {
		bc := buildCheck{ctx: ctx, mem: mem}
		if o.Progress != nil {
			base, w := before/total, weight[g]/total
			bc.progress = func(f float64) { o.Progress(base + w*f) }
		}
		before += weight[g]
		gr, err := s.buildGroup(ps, groupRestr[g], b, bc)
		if err != nil {
			return err
		}
		if gr.count == 0 {
			return fmt.Errorf("no configuration satisfies the restrictions on %s: %w", s.names(ps), ErrEmpty)
		}
		mem.used += gr.allocBytes()
		for l, p := range gr.params {
			s.groupOf[p] = g
			s.levelOf[p] = l
		}
		s.groups = append(s.groups, gr)
		if mulOverflows(s.size, gr.count) {
			return ErrTooLarge
		}
		s.size *= gr.count
	}
	if o.Progress != nil {
		o.Progress(1)
	}
	s.stride = make([]int, len(s.groups))
	stride := 1
	for g := len(s.groups) - 1; g >= 0; g-- {
		s.stride[g] = stride
		stride *= s.groups[g].count
	}
	return nil
}

func (s *Space) names(ps []int) string {
	out := ""
	for k, p := range ps {
		if k > 0 {
			out += ", "
		}
		out += s.params[p].Name
	}
	return out
}

func (s *Space) bind(b *Bindings, p, v int) {
	b.Num[p] = s.nums[p][v]
	if s.strs[p] != nil {
		b.Str[p] = s.strs[p][v]
	}
}

// buildGroup filters each parameter's values by the restrictions that read it alone,
// orders the parameters so restrictions are checked as early as possible, and enumerates
// the valid combinations depth first into a trie.
func (s *Space) buildGroup(ps []int, rs []Restriction, b *Bindings, bc buildCheck) (*group, error) {
	allowed := map[int][]uint16{}
	var multi []Restriction
	for _, p := range ps {
		vals := make([]uint16, 0, len(s.params[p].Values))
		for v := range s.params[p].Values {
			s.bind(b, p, v)
			ok := true
			for _, r := range rs {
				if rp := r.Params(); len(rp) == 1 && rp[0] == p && !r.Holds(b) {
					if b.Inexact {
						return nil, s.inexactError(r, b)
					}
					ok = false
					break
				}
			}
			if ok {
				vals = append(vals, uint16(v))
			}
		}
		allowed[p] = vals
	}
	for _, r := range rs {
		if len(r.Params()) > 1 {
			multi = append(multi, r)
		}
	}
	order, checks := planOrder(ps, multi, allowed)
	L := len(order)
	g := &group{
		params: order,
		val:    make([][]uint16, L),
		parent: make([][]uint32, L),
		first:  make([][]uint32, L),
	}
	lists := make([][]uint16, L)
	for l, p := range order {
		lists[l] = allowed[p]
		if len(lists[l]) == 0 {
			return g, nil
		}
	}
	if L == 1 {
		g.val[0] = lists[0]
		g.count = len(lists[0])
		return g, nil
	}
	last := L - 1
	if err := s.checkSample(order, ps, rs, lists, checks, b, bc.mem); err != nil {
		return nil, err
	}
	tooLarge := func(enumerated float64) error {
		e := s.tooLarge(ps, rs, lists, bc.mem)
		e.Enumerated = enumerated
		e.Valid = float64(len(g.val[last]))
		if enumerated > 0 {
			e.Valid /= enumerated
		}
		return e
	}
	cur := make([]int, L)
	made := make([]bool, L)
	level := 0
	cur[0] = -1
	tick := 0
	for level >= 0 {
		if tick++; tick&(buildCheckEvery-1) == 0 {
			done, err := bc.check(cur[:level+1], lists)
			if err != nil {
				return nil, err
			}
			if bc.mem.over(g.allocBytes()) {
				return nil, tooLarge(done)
			}
		}
		cur[level]++
		made[level] = false
		if cur[level] >= len(lists[level]) {
			level--
			continue
		}
		p := order[level]
		v := int(lists[level][cur[level]])
		s.bind(b, p, v)
		ok := true
		for _, r := range checks[level] {
			if !r.Holds(b) {
				if b.Inexact {
					return nil, s.inexactError(r, b)
				}
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if level < last {
			level++
			cur[level] = -1
			continue
		}
		for l := 0; l < last; l++ {
			if made[l] {
				continue
			}
			g.val[l] = append(g.val[l], lists[l][cur[l]])
			if l > 0 {
				g.parent[l] = append(g.parent[l], uint32(len(g.val[l-1])-1))
			}
			g.first[l] = append(g.first[l], uint32(len(g.val[l+1])))
			made[l] = true
		}
		if len(g.val[last]) >= math.MaxUint32 {
			return nil, fmt.Errorf("group %s has more than %d valid combinations", s.names(ps), math.MaxUint32)
		}
		if n := len(g.val[last]); n == cap(g.val[last]) && bc.mem.over(g.allocBytes()+int64(n/4+1)*leafBytes) {
			// the last level's arrays are full: growing them would pass the bound
			done, _ := bc.check(cur, lists)
			return nil, tooLarge(done)
		}
		g.val[last] = append(g.val[last], uint16(v))
		g.parent[last] = append(g.parent[last], uint32(len(g.val[last-1])-1))
	}
	for l := 0; l < last; l++ {
		g.first[l] = append(g.first[l], uint32(len(g.val[l+1])))
	}
	g.count = len(g.val[last])
	return g, nil
}

// buildCheck is what a group's enumeration looks at every buildCheckEvery candidates.
type buildCheck struct {
	ctx      context.Context
	progress func(done float64) // the fraction of the group's product enumerated; may be nil
	mem      *memoryBudget
}

// check returns the context's error, and otherwise the fraction of the group's product
// enumerated at the depth-first position cur (the value positions of the levels bound so
// far in lists), which it reports as progress.
func (bc buildCheck) check(cur []int, lists [][]uint16) (float64, error) {
	if err := bc.ctx.Err(); err != nil {
		return 0, err
	}
	// the combinations before cur's position, as a fraction of the product: at each
	// level, the earlier siblings' whole subtrees
	done, share := 0.0, 1.0
	for l, c := range cur {
		share /= float64(len(lists[l]))
		done += float64(max(c, 0)) * share
	}
	if bc.progress != nil {
		bc.progress(done)
	}
	return done, nil
}

// memoryBudget is the bound on a construction's index (BuildOptions.MaxBytes) and what the
// groups built so far take of it.
type memoryBudget struct {
	max       int64 // negative: no bound; 0: DefaultMaxBytes(), not read yet
	isDefault bool  // max is DefaultMaxBytes()
	used      int64
}

// bound is the bound, negative for none. The default is read when first needed: reading
// the memory available costs more than building a small space.
func (m *memoryBudget) bound() int64 {
	if m.max == 0 {
		m.max, m.isDefault = DefaultMaxBytes(), true
	}
	return m.max
}

// fits reports whether n bytes more than the groups built so far take are within the
// bound, without reading the default bound while they are within its least value.
func (m *memoryBudget) fits(n int64) bool {
	if m.max == 0 && m.used+n <= minMaxBytes {
		return true
	}
	b := m.bound()
	return b < 0 || m.used+n <= b
}

// over reports whether a group whose index takes n bytes passes the bound.
func (m *memoryBudget) over(n int64) bool { return !m.fits(n) }

// allocBytes is the memory the group's index arrays hold, their spare capacity included.
func (g *group) allocBytes() int64 {
	var n int64
	for l := range g.val {
		n += 2*int64(cap(g.val[l])) + 4*int64(cap(g.parent[l])) + 4*int64(cap(g.first[l]))
	}
	return n
}

// holdsAlways reports whether r says it holds for every combination of its parameters'
// values (see Restriction).
func holdsAlways(r Restriction) bool {
	a, ok := r.(interface{ HoldsAlways() bool })
	return ok && a.HoldsAlways()
}

// sampleSize is how many random combinations of a group's values checkSample draws.
const sampleSize = 4096

// checkSample refuses, before enumerating it, a group (its parameters ps, in order) whose
// valid combinations a random sample shows to be too many for the memory bound: the
// enumeration would run for as long as it takes to fill the bound, and fail then. It draws sampleSize combinations of the
// values in lists (seeded: the same space decides alike) and counts those that satisfy the
// restrictions; it refuses when so many do that a group within the bound would give as
// many with a probability below e**-30 (Chernoff's bound on the binomial tail), so that a
// group that fits is never refused in practice. A group whose product fits is not sampled.
func (s *Space) checkSample(order, ps []int, rs []Restriction, lists [][]uint16, checks [][]Restriction, b *Bindings, mem *memoryBudget) error {
	product := 1.0
	for _, l := range lists {
		product *= float64(len(l))
	}
	if mem.fits(int64(min(product*leafBytes, math.MaxInt64/2))) {
		return nil // even every combination valid fits, or there is no bound
	}
	fits := float64(max(mem.bound()-mem.used, 0)) / leafBytes // valid combinations the bound holds at most

	r := rand.New(rand.NewPCG(0x73706163, 0x65)) // "space", "e"
	hits := 0
	for range sampleSize {
		for l, p := range order {
			s.bind(b, p, int(lists[l][r.IntN(len(lists[l]))]))
		}
		ok := true
		for _, level := range checks {
			for _, rr := range level {
				if !rr.Holds(b) {
					if b.Inexact {
						return nil // the enumeration says where, as an error
					}
					ok = false
					break
				}
			}
			if !ok {
				break
			}
		}
		if ok {
			hits++
		}
	}
	q, p0 := float64(hits)/sampleSize, fits/product
	if q <= p0 || sampleSize*klBernoulli(q, p0) < 30 {
		return nil
	}
	e := s.tooLarge(ps, rs, lists, mem)
	e.Valid, e.Sampled = q*product, sampleSize
	return e
}

// klBernoulli is the Kullback-Leibler divergence of Bernoulli(p) from Bernoulli(q): the
// exponent per draw of the chance that draws of probability p show a frequency of q or
// more (q > p).
func klBernoulli(q, p float64) float64 {
	d := q * math.Log(q/p)
	if q < 1 {
		d += (1 - q) * math.Log((1-q)/(1-p))
	}
	return d
}

// tooLarge is the TooLargeError of the group of parameters ps (with its lists of values)
// under the restrictions rs, without its estimate of the valid combinations.
func (s *Space) tooLarge(ps []int, rs []Restriction, lists [][]uint16, mem *memoryBudget) *TooLargeError {
	e := &TooLargeError{Product: 1, MaxBytes: mem.max, Default: mem.isDefault}
	for _, p := range ps {
		e.Params = append(e.Params, s.params[p].Name)
	}
	for _, r := range rs {
		if len(r.Params()) > 1 {
			e.Restrictions = append(e.Restrictions, r.Source())
		}
	}
	for _, l := range lists {
		e.Product *= float64(len(l))
	}
	return e
}

// planOrder orders a group's parameters greedily: single-valued parameters first (they
// never branch), then at each step the parameter that completes the most restrictions,
// then the one read by the most still-open restrictions, then the one with fewest values.
// It returns, per level, the restrictions whose last parameter is bound at that level.
func planOrder(ps []int, rs []Restriction, allowed map[int][]uint16) ([]int, [][]Restriction) {
	bound := map[int]bool{}
	var order []int
	for _, p := range ps {
		if len(allowed[p]) <= 1 {
			order = append(order, p)
			bound[p] = true
		}
	}
	complete := func(r Restriction, extra int) bool {
		for _, q := range r.Params() {
			if !bound[q] && q != extra {
				return false
			}
		}
		return true
	}
	for len(order) < len(ps) {
		best, bestC, bestO, bestV := -1, -1, -1, 0
		for _, p := range ps {
			if bound[p] {
				continue
			}
			c, o := 0, 0
			for _, r := range rs {
				if complete(r, -2) {
					continue
				}
				reads := false
				for _, q := range r.Params() {
					if q == p {
						reads = true
					}
				}
				if !reads {
					continue
				}
				o++
				if complete(r, p) {
					c++
				}
			}
			v := len(allowed[p])
			if best < 0 || c > bestC || (c == bestC && (o > bestO || (o == bestO && v < bestV))) {
				best, bestC, bestO, bestV = p, c, o, v
			}
		}
		order = append(order, best)
		bound[best] = true
	}
	level := map[int]int{}
	for l, p := range order {
		level[p] = l
	}
	checks := make([][]Restriction, len(order))
	for _, r := range rs {
		at := 0
		for _, q := range r.Params() {
			at = max(at, level[q])
		}
		checks[at] = append(checks[at], r)
	}
	return order, checks
}

// inexactError reports a restriction whose exact value at the bound configuration needs
// an integer of 2**53 or more: Python computes it with big integers, ktune does not guess.
func (s *Space) inexactError(r Restriction, b *Bindings) error {
	vals := ""
	for k, p := range r.Params() {
		if k > 0 {
			vals += ", "
		}
		v := FormatFloat(b.Num[p])
		if s.strs[p] != nil {
			v = fmt.Sprintf("%q", b.Str[p])
		}
		for i, x := range s.nums[p] {
			if x == b.Num[p] && (s.strs[p] == nil || s.strs[p][i] == b.Str[p]) {
				v = s.params[p].Values[i].String()
				break
			}
		}
		vals += s.params[p].Name + "=" + v
	}
	return fmt.Errorf("restriction %q at %s: an integer result reaches 2**53, beyond what ktune computes exactly (Python's integers are unbounded; rewrite the restriction to keep its integers smaller)", r.Source(), vals)
}
