package stencil

import (
	"reflect"
	"testing"
)

// The same options give the same stencil; another seed gives another random one.
func TestGenerateIsDeterministicFromItsSeed(t *testing.T) {
	for _, o := range []Options{
		{Dim: 2, Order: 3, Shape: Random, Seed: 7},
		{Dim: 3, Order: 2, Shape: Random, Seed: 11},
		{Dim: 3, Order: 2, Shape: Box, Seed: 5},
	} {
		a, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Generate(o)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%+v: two stencils:\n%+v\n%+v", o, a, b)
		}
		sa, _ := Spec(a, SpecOptions{})
		sb, _ := Spec(b, SpecOptions{})
		if string(sa) != string(sb) {
			t.Errorf("%+v: two specs", o)
		}
	}
	differ := false
	first, _ := Generate(Options{Dim: 3, Order: 3, Shape: Random, Seed: 1})
	for seed := uint64(2); seed < 6; seed++ {
		s, _ := Generate(Options{Dim: 3, Order: 3, Shape: Random, Seed: seed})
		differ = differ || !reflect.DeepEqual(first.Points, s.Points)
	}
	if !differ {
		t.Error("seeds 1 to 5 gave the same random 3D order-3 points")
	}
}

// Every generated stencil has the centre, reaches its order, and is symmetric: each
// point's reflections along every axis are points with the same coefficient. Random ones
// (Algorithm 1) have a point of every order up to theirs, each adjacent to one of the order
// below.
func TestGeneratedStencilsAreSymmetric(t *testing.T) {
	for _, shape := range Shapes {
		for dim := 2; dim <= 3; dim++ {
			for order := 1; order <= 4; order++ {
				for seed := uint64(1); seed <= 5; seed++ {
					s, err := Generate(Options{Dim: dim, Order: order, Shape: shape, Seed: seed})
					if err != nil {
						t.Fatal(err)
					}
					if err := s.Validate(); err != nil {
						t.Fatal(err)
					}
					coef := map[Point]float64{}
					for i, p := range s.Points {
						coef[p] = s.Coefs[i]
					}
					if _, ok := coef[Point{}]; !ok {
						t.Errorf("%s: no centre", s.Name)
					}
					byOrder := map[int][]Point{}
					for p, c := range coef {
						byOrder[p.Chebyshev()] = append(byOrder[p.Chebyshev()], p)
						for d := range dim {
							q := p
							q[d] = -q[d]
							if cq, ok := coef[q]; !ok || cq != c {
								t.Errorf("%s: %v has %v, its reflection %v has %v (present: %v)", s.Name, p, c, q, cq, ok)
							}
						}
						if c == 0 || c < -1 || c > 1 || c*64 != float64(int(c*64)) {
							t.Errorf("%s: coefficient %v, want a multiple of 1/64 in [-1, 1] other than 0", s.Name, c)
						}
					}
					for k := 1; k <= order; k++ {
						if len(byOrder[k]) == 0 {
							t.Errorf("%s: no point of order %d", s.Name, k)
						}
						for _, q := range byOrder[k] {
							adjacent := false
							for _, p := range byOrder[k-1] {
								adjacent = adjacent || (Point{q[0] - p[0], q[1] - p[1], q[2] - p[2]}).Chebyshev() == 1
							}
							if !adjacent {
								t.Errorf("%s: %v touches no point of order %d", s.Name, q, k-1)
							}
						}
					}
				}
			}
		}
	}
	star3, _ := Generate(Options{Dim: 3, Order: 2, Shape: Star})
	box2, _ := Generate(Options{Dim: 2, Order: 3, Shape: Box})
	if len(star3.Points) != 13 || len(box2.Points) != 49 {
		t.Errorf("star3d2r has %d points, want 13; box2d3r %d, want 49", len(star3.Points), len(box2.Points))
	}
}

// Table 2's features of the 2D 5-point star and of the 3D 27-point box, counted by hand.
func TestFeaturesByHand(t *testing.T) {
	five := &Stencil{Name: "five", Dim: 2, Order: 1,
		Points: []Point{{0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Coefs: []float64{1, 1, -4, 1, 1}}
	got := five.Features()
	want := Features{Order: 1, NNZ: 5, Sparsity: 5.0 / 9,
		NNZOrder: []int{4}, NNZOrderRatio: []float64{0.8},
		NNZStep: []int{4, 0}, NNZStepRatio: []float64{0.8, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("5-point star: %+v, want %+v", got, want)
	}
	box, _ := Generate(Options{Dim: 3, Order: 1, Shape: Box})
	got = box.Features()
	// 6 faces at step 1, 12 edges at step 2, 8 corners at step 3, all 26 of order 1
	want = Features{Order: 1, NNZ: 27, Sparsity: 1,
		NNZOrder: []int{26}, NNZOrderRatio: []float64{26.0 / 27},
		NNZStep: []int{6, 12, 8}, NNZStepRatio: []float64{6.0 / 27, 12.0 / 27, 8.0 / 27}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("27-point box: %+v, want %+v", got, want)
	}
	names, values := five.Features().Vector(2, 2)
	if len(names) != len(values) || len(names) != 3+2+2+4+4 || names[3] != "nnz_order_1" || values[3] != 4 || values[4] != 0 {
		t.Errorf("vector: %v %v", names, values)
	}
	tensor := five.Tensor()
	wantT := [][][]int{{{-1, 1, -1}, {1, 0, 1}, {-1, 1, -1}}}
	if !reflect.DeepEqual(tensor, wantT) {
		t.Errorf("tensor %v, want %v", tensor, wantT)
	}
}
