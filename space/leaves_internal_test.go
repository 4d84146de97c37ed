package space

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sumAtMost is the restriction that params' values sum to at most max.
type sumAtMost struct {
	params []int
	max    float64
}

func (r sumAtMost) Source() string { return "sum <= max" }
func (r sumAtMost) Params() []int  { return r.params }
func (r sumAtMost) Holds(b *Bindings) bool {
	s := 0.0
	for _, p := range r.params {
		s += b.Num[p]
	}
	return s <= r.max
}

// The leaf table gives every combination, and every weighted distance with its early
// stop, exactly as the walk up the trie does: the runs of the strategies that draw from it
// are the same.
func TestTheLeafTableIsTheWalk(t *testing.T) {
	var params []Param
	for i := range 6 {
		p := Param{Name: string(rune('a' + i))}
		for v := range 5 + i {
			p.Values = append(p.Values, IntValue(int64(v*(i+1))))
		}
		params = append(params, p)
	}
	sp, err := NewCompiled(params, []Restriction{sumAtMost{[]int{0, 1, 2, 3}, 20}, sumAtMost{[]int{3, 4, 5}, 25}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.groups) != 1 {
		t.Fatalf("%d groups, want the restrictions to tie the parameters into one", len(sp.groups))
	}
	g := sp.groups[0]
	if g.leafTable() == nil || g.count < 1000 {
		t.Fatalf("no leaf table for a group of %d combinations", g.count)
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := len(params)
	weight := make([]float64, n)
	for p := range weight {
		weight[p] = r.Float64()
	}
	for i := range g.count {
		a, b := make(Config, n), make(Config, n)
		g.at(i, a)
		g.walkAt(i, b)
		if !slices.Equal(a, b) {
			t.Fatalf("combination %d: table %v, walk %v", i, a, b)
		}
		c := make(Config, n)
		g.walkAt(r.IntN(g.count), c)
		limit := r.Float64() * 20
		a, b = make(Config, n), make(Config, n)
		da, oka := g.atWithin(i, c, a, weight, limit)
		db, okb := g.walkAtWithin(i, c, b, weight, limit)
		if da != db || oka != okb || !slices.Equal(a, b) {
			t.Fatalf("combination %d within %v of %v: table %v %v %v, walk %v %v %v", i, limit, c, da, oka, a, db, okb, b)
		}
	}
}
