package space

import "fmt"

// Neighbourhood names a neighbour relation between configurations.
type Neighbourhood uint8

// Neighbourhoods of seed 000 and Kernel Tuner.
const (
	// Hamming: differs in exactly one parameter, to any other value.
	Hamming Neighbourhood = iota + 1
	// Adjacent: one parameter moves to the previous or next value in its list
	// (seed 000 calls this "bounded").
	Adjacent
	// StrictlyAdjacent: every parameter moves at most one step in its list.
	StrictlyAdjacent
)

// String returns the neighbourhood's name as ParseNeighbourhood accepts it.
func (n Neighbourhood) String() string {
	switch n {
	case Hamming:
		return "Hamming"
	case Adjacent:
		return "adjacent"
	case StrictlyAdjacent:
		return "strictly-adjacent"
	}
	return "invalid"
}

// ParseNeighbourhood accepts "Hamming", "adjacent" (or "bounded") and "strictly-adjacent".
func ParseNeighbourhood(s string) (Neighbourhood, error) {
	switch s {
	case "Hamming", "hamming":
		return Hamming, nil
	case "adjacent", "bounded":
		return Adjacent, nil
	case "strictly-adjacent", "strictly_adjacent":
		return StrictlyAdjacent, nil
	}
	return 0, fmt.Errorf("unknown neighbourhood %q (want Hamming, adjacent or strictly-adjacent)", s)
}

// Neighbours calls fn with each valid neighbour of c under n. The Config passed to fn is
// reused between calls: clone it to keep it. It never scans the space: Hamming and adjacent
// walk, for each parameter, the trie of its group below c's values of the parameters before
// it; strictly-adjacent walks each group's trie inside the one-step window around c.
//
// Validity is checked in the changed parameter's group only, so for a c that breaks
// another group's restrictions the configurations passed to fn break them too.
func (s *Space) Neighbours(c Config, n Neighbourhood, fn func(Config)) {
	cand := c.Clone()
	switch n {
	case Hamming, Adjacent:
		for p := range c {
			s.moves(c, cand, p, n, fn)
		}
	case StrictlyAdjacent:
		// Per group, the combinations inside the window; the neighbours are their product
		// minus c itself.
		per := make([][]Config, len(s.groups))
		for g, gr := range s.groups {
			per[g] = s.windowCombos(gr, c)
		}
		var rec func(g int, same bool)
		rec = func(g int, same bool) {
			if g == len(s.groups) {
				if !same {
					fn(cand)
				}
				return
			}
			gr := s.groups[g]
			for _, combo := range per[g] {
				eq := true
				for l, p := range gr.params {
					cand[p] = combo[l]
					if combo[l] != c[p] {
						eq = false
					}
				}
				rec(g+1, same && eq)
			}
		}
		rec(0, true)
	}
}

// Moves calls fn with each configuration that differs from c in parameter p only, to any
// other value (Hamming) or to the previous or next one (Adjacent), and is valid in p's
// group. It allocates nothing: fn receives c itself with p changed, and c is restored
// before Moves returns, so fn must neither keep nor change it.
func (s *Space) Moves(c Config, p int, n Neighbourhood, fn func(Config)) {
	if n != Hamming && n != Adjacent {
		panic(fmt.Sprintf("space: Moves with the %s neighbourhood", n))
	}
	s.moves(c, c, p, n, fn)
}

// GroupMoves calls fn(p, m) for every parameter p of group g, in increasing order of p,
// with each configuration m that differs from c in p only and whose values of g's
// parameters are a valid combination: the Hamming moves of Moves for each of g's
// parameters, with the walk down c's prefix in g's trie shared between them. As with
// Moves, m is c itself, changed in place and restored before GroupMoves returns.
func (s *Space) GroupMoves(c Config, g int, fn func(p int, m Config)) {
	gr := s.groups[g]
	var buf [16][2]int
	var rng [][2]int
	if len(gr.params) > len(buf) {
		rng = make([][2]int, len(gr.params))
	} else {
		rng = buf[:len(gr.params)]
	}
	filled := gr.prefixRanges(c, rng)
	for p, pg := range s.groupOf {
		l := s.levelOf[p]
		if pg != g || l >= filled {
			continue
		}
		v := c[p]
		gr.movesIn(c, l, rng[l][0], rng[l][1], func(w int) {
			c[p] = w
			fn(p, c)
		})
		c[p] = v
	}
}

// moves is Moves with cand, c or a copy of it, as the configuration passed to fn; it
// leaves cand equal to c.
func (s *Space) moves(c, cand Config, p int, n Neighbourhood, fn func(Config)) {
	v := c[p]
	lo, hi := 0, len(s.params[p].Values)-1
	if n == Adjacent {
		lo, hi = max(v-1, 0), min(v+1, hi)
	}
	s.groups[s.groupOf[p]].moves(c, s.levelOf[p], lo, hi, func(w int) {
		cand[p] = w
		fn(cand)
	})
	cand[p] = v
}

// NeighbourList returns the neighbours of c under n as fresh configurations.
func (s *Space) NeighbourList(c Config, n Neighbourhood) []Config {
	var out []Config
	s.Neighbours(c, n, func(x Config) { out = append(out, x.Clone()) })
	return out
}

// windowCombos lists the valid combinations of a group's parameters whose value indices
// are each within one step of c's, as level-ordered value lists.
func (s *Space) windowCombos(gr *group, c Config) []Config {
	var out []Config
	path := make(Config, len(gr.params))
	var walk func(l, node int)
	walk = func(l, node int) {
		lo, hi := gr.children(l-1, node)
		p := gr.params[l]
		want := c[p]
		for k := lo; k < hi; k++ {
			v := int(gr.val[l][k])
			if v < want-1 {
				continue
			}
			if v > want+1 {
				break
			}
			path[l] = v
			if l == len(gr.params)-1 {
				out = append(out, path.Clone())
			} else {
				walk(l+1, k)
			}
		}
	}
	walk(0, 0)
	return out
}
