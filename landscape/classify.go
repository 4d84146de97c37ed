package landscape

import (
	"context"
	"fmt"

	"github.com/ktune/ktune/space"
)

// Class is the kind of critical point a configuration is under a neighbourhood.
type Class uint8

// Classes of points.
const (
	// Regular: some dimension has both better and worse (or equal) neighbours, or the
	// point failed next to another failure (a failure plateau) or with no neighbour.
	Regular Class = iota
	// Minimum: in every dimension, no neighbour is strictly better.
	Minimum
	// Maximum: in every dimension, every neighbour is strictly better.
	Maximum
	// Saddle: a minimum in some dimensions, a maximum in the others.
	Saddle
)

// String returns the class's lower-case name.
func (c Class) String() string {
	switch c {
	case Regular:
		return "regular"
	case Minimum:
		return "minimum"
	case Maximum:
		return "maximum"
	case Saddle:
		return "saddle"
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// MarshalText writes the class's name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Classify classifies every configuration of l under nb (space.Hamming or
// space.Adjacent), per dimension as seed 000's published code does. For each parameter d,
// the neighbours that differ from x in d alone are compared with x: when all of them are
// no better (fitness >= f(x)) x is minimal in d, when all are strictly better it is
// maximal in d, and otherwise x is Regular. A parameter in which x has no neighbour (in a
// restricted space) is skipped. x is a Minimum when minimal in every remaining parameter
// (also when it has no neighbour at all), a Maximum when minimal in none, a Saddle
// otherwise. A failed x is never a Minimum: with a failed neighbour (a failure plateau) or
// with no neighbour at all it is Regular, otherwise a Maximum, as every neighbour is
// better.
func Classify(ctx context.Context, l *Landscape, nb space.Neighbourhood) ([]Class, error) {
	if nb != space.Hamming && nb != space.Adjacent {
		return nil, fmt.Errorf("landscape: classification needs a Hamming or adjacent neighbourhood, not %v", nb)
	}
	ns, err := listNeighbours(ctx, l, nb)
	if err != nil {
		return nil, err
	}
	return classify(l.fitness(), ns, len(l.Space.Params())), nil
}

func classify(f []float64, ns *neighbours, params int) []Class {
	classes := make([]Class, len(f))
	// Per parameter: neighbours seen and how many of them are no better.
	seen := make([]int32, params)
	larger := make([]int32, params)
	for x := range f {
		lo, hi := ns.offset[x], ns.offset[x+1]
		fx := f[x]
		if fx == failFitness {
			// alone, a failure would be minimal in no dimension and pass for a minimum
			plateau := lo == hi
			for _, y := range ns.target[lo:hi] {
				if f[y] == failFitness {
					plateau = true
					break
				}
			}
			if plateau {
				classes[x] = Regular
				continue
			}
		}
		clear(seen)
		clear(larger)
		for k := lo; k < hi; k++ {
			d := ns.dim[k]
			seen[d]++
			if f[ns.target[k]] >= fx {
				larger[d]++
			}
		}
		minimal, maximal, regular := 0, 0, false
		for d := range params {
			switch {
			case seen[d] == 0:
			case larger[d] == seen[d]:
				minimal++
			case larger[d] == 0:
				maximal++
			default:
				regular = true
			}
			if regular {
				break
			}
		}
		switch {
		case regular:
			classes[x] = Regular
		case maximal == 0:
			classes[x] = Minimum
		case minimal == 0:
			classes[x] = Maximum
		default:
			classes[x] = Saddle
		}
	}
	return classes
}
