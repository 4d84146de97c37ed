package space

import (
	"fmt"
	"slices"
)

// FromConfigs builds a space whose valid configurations are exactly the given ones (for
// example the configurations a recorded run measured). Duplicates are ignored. All
// parameters form one group, in their given order. Only the given configurations are
// indexed, so the cartesian product of the values may be larger than an int.
func FromConfigs(params []Param, configs []Config) (*Space, error) {
	s, err := unbuilt(params, nil)
	if err != nil {
		return nil, err
	}
	if len(configs) == 0 {
		return nil, fmt.Errorf("no configurations: %w", ErrEmpty)
	}
	sorted := make([]Config, 0, len(configs))
	for i, c := range configs {
		if len(c) != len(params) {
			return nil, fmt.Errorf("configuration %d has %d values, want %d", i, len(c), len(params))
		}
		for p, v := range c {
			if v < 0 || v >= len(params[p].Values) {
				return nil, fmt.Errorf("configuration %d: value index %d out of range for parameter %s", i, v, params[p].Name)
			}
		}
		sorted = append(sorted, c)
	}
	slices.SortFunc(sorted, func(a, b Config) int { return slices.Compare(a, b) })
	sorted = slices.CompactFunc(sorted, func(a, b Config) bool { return slices.Equal(a, b) })

	L := len(params)
	g := &group{params: make([]int, L), val: make([][]uint16, L), parent: make([][]uint32, L), first: make([][]uint32, L)}
	for l := range g.params {
		g.params[l] = l
	}
	var prev Config
	for _, c := range sorted {
		// The first level where c departs from the previous configuration starts new nodes.
		d := 0
		for prev != nil && d < L && c[d] == prev[d] {
			d++
		}
		for l := d; l < L; l++ {
			g.val[l] = append(g.val[l], uint16(c[l]))
			if l > 0 {
				g.parent[l] = append(g.parent[l], uint32(len(g.val[l-1])-1))
			}
			if l < L-1 {
				g.first[l] = append(g.first[l], uint32(len(g.val[l+1])))
			}
		}
		prev = c
	}
	for l := 0; l < L-1; l++ {
		g.first[l] = append(g.first[l], uint32(len(g.val[l+1])))
	}
	g.count = len(g.val[L-1])
	s.groups = []*group{g}
	s.stride = []int{1}
	s.size = g.count
	s.groupOf = make([]int, L)
	s.levelOf = make([]int, L)
	for l := range params {
		s.levelOf[l] = l
	}
	return s, nil
}
