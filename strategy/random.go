package strategy

import (
	"context"
	"math/rand/v2"

	"github.com/ktune/ktune/space"
)

var randomFactory = Factory{
	Doc: "Random sampling without replacement: evaluates uniformly random valid " +
		"configurations, never the same one twice, until the budget or the space is " +
		"exhausted. The baseline every other strategy must beat (seed 000). Memory grows " +
		"with the number of evaluations, not with the size of the space.",
	New: func(Options) (Strategy, error) { return random{}, nil },
}

type random struct{}

func (random) Name() string { return "random" }

func (random) Run(ctx context.Context, p Problem) error {
	sp := p.Space()
	perm := newLazyPermutation(sp.Len(), p.Remaining())
	r := p.Rand()
	// Draws are taken lookahead steps early, in the same order from the same generator,
	// so the next configurations can be hinted for compilation without changing the run.
	const lookahead = hintAhead
	var queue []int
	for len(queue) < lookahead && perm.more() {
		queue = append(queue, perm.next(r))
	}
	var c space.Config
	for len(queue) > 0 {
		idx := queue[0]
		queue = queue[1:]
		if perm.more() {
			queue = append(queue, perm.next(r))
		}
		if takesHints(p) {
			up := make([]space.Config, 0, len(queue))
			for _, q := range queue {
				up = append(up, sp.At(q, nil))
			}
			hint(p, up...)
		}
		c = sp.At(idx, c)
		if _, err := p.Evaluate(ctx, c); err != nil {
			return stopped(err)
		}
	}
	return nil
}

// lazyPermutation draws a uniformly random permutation of [0, n) one element at a time:
// a Fisher-Yates shuffle whose array is the identity except where a swap changed it, and
// only those positions are stored. Drawing k elements costs O(k) time and memory whatever
// n is, and needs no k up front (a time limit ends a run after an unknown count).
type lazyPermutation struct {
	n, i    int
	swapped map[int]int // position -> element, where it differs from the identity
}

// maxPrealloc caps the map size reserved from a budget, so that a huge budget on a huge
// space does not allocate memory the run may never use.
const maxPrealloc = 1 << 16

func newLazyPermutation(n, expected int) *lazyPermutation {
	return &lazyPermutation{n: n, swapped: make(map[int]int, min(expected, n, maxPrealloc))}
}

func (p *lazyPermutation) more() bool { return p.i < p.n }

func (p *lazyPermutation) at(pos int) int {
	if v, ok := p.swapped[pos]; ok {
		return v
	}
	return pos
}

// next returns the element at position i after swapping it with a uniformly random
// position in [i, n): the classic shuffle step, done lazily.
func (p *lazyPermutation) next(r *rand.Rand) int {
	j := p.i + r.IntN(p.n-p.i)
	picked := p.at(j)
	if j != p.i {
		p.swapped[j] = p.at(p.i)
	}
	delete(p.swapped, p.i) // position i is never read again
	p.i++
	return picked
}
