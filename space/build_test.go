package space_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// sumSpace is the QA case of a construction that cannot finish: twelve parameters of ten
// values tied by one restriction, a product of 1e12 that is enumerated to its last level.
func sumSpace() ([]space.Param, []string) {
	var params []space.Param
	var names []string
	for i := range 12 {
		vals := make([]space.Value, 10)
		for v := range vals {
			vals[v] = space.IntValue(int64(v))
		}
		name := fmt.Sprintf("p%d", i)
		params = append(params, space.Param{Name: name, Values: vals})
		names = append(names, name)
	}
	return params, []string{strings.Join(names, "+") + " == 3"}
}

func TestConstructionStopsWhenTheContextIsCancelled(t *testing.T) {
	params, rs := sumSpace()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	var last float64
	calls := 0
	_, err := space.NewContext(ctx, params, rs, expr.CompileRestriction, space.BuildOptions{Progress: func(f float64) {
		if f < last || f > 1 {
			t.Errorf("progress went from %g to %g", last, f)
		}
		last = f
		calls++
	}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("construction stopped %v after it was started with a 100ms deadline", took)
	}
	if calls == 0 || last <= 0 || last >= 1e-3 {
		t.Errorf("progress was reported %d times, last %g: want some, a small fraction of 1e12", calls, last)
	}
}

func TestConstructionProgressReachesOneAcrossGroups(t *testing.T) {
	vals := func(n int) []space.Value {
		out := make([]space.Value, n)
		for v := range out {
			out[v] = space.IntValue(int64(v))
		}
		return out
	}
	// two groups: a (a, b) product of 1e6 and a (c, d) product of 100, with a big enough
	// enumeration to report in between
	params := []space.Param{{Name: "a", Values: vals(1000)}, {Name: "b", Values: vals(1000)},
		{Name: "c", Values: vals(10)}, {Name: "d", Values: vals(10)}}
	var got []float64
	s, err := space.NewContext(context.Background(), params, []string{"a >= b", "c != d"}, expr.CompileRestriction,
		space.BuildOptions{Progress: func(f float64) { got = append(got, f) }})
	if err != nil {
		t.Fatal(err)
	}
	if want := 1000 * 1001 / 2 * 90; s.Len() != want {
		t.Errorf("Len = %d, want %d", s.Len(), want)
	}
	if len(got) < 3 || got[len(got)-1] != 1 {
		t.Fatalf("progress %v: want several reports ending at 1", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] < got[i-1] {
			t.Fatalf("progress went back from %g to %g", got[i-1], got[i])
		}
	}
}

func TestConstructionWithADoneContextBuildsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	params := []space.Param{{Name: "a", Values: []space.Value{space.IntValue(1)}}}
	if _, err := space.NewContext(ctx, params, nil, expr.CompileRestriction, space.BuildOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestSampleInOrderIsUniformDistinctAndIncreasing(t *testing.T) {
	values := func(n int) []space.Value {
		out := make([]space.Value, n)
		for v := range out {
			out[v] = space.IntValue(int64(v))
		}
		return out
	}
	tests := []struct {
		name   string
		size   int
		n      int
		draws  int
		chiMax float64 // mean + 5 sd of chi-square with size-1 degrees of freedom
	}{
		{"a large part of the space (Algorithm A)", 10, 3, 20000, 9 + 5*4.2},
		{"a small part of the space (Algorithm D)", 1000, 10, 20000, 999 + 5*44.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := space.NewCompiled([]space.Param{{Name: "a", Values: values(tt.size)}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(7, 7))
			counts := make([]int, s.Len())
			for range tt.draws {
				prev, got := -1, 0
				for i := range s.SampleInOrder(r, tt.n) {
					if i <= prev || i >= s.Len() {
						t.Fatalf("index %d after %d: want distinct increasing indices below %d", i, prev, s.Len())
					}
					prev = i
					got++
					counts[i]++
				}
				if got != tt.n {
					t.Fatalf("drew %d indices, want %d", got, tt.n)
				}
			}
			exp := float64(tt.draws*tt.n) / float64(tt.size)
			chi := 0.0
			for _, c := range counts {
				chi += (float64(c) - exp) * (float64(c) - exp) / exp
			}
			if chi > tt.chiMax {
				t.Errorf("chi-square %.1f (at most %.1f expected): not uniform", chi, tt.chiMax)
			}
			all := 0
			for range s.SampleInOrder(r, tt.size+5) {
				all++
			}
			if all != s.Len() {
				t.Errorf("a sample larger than the space gave %d indices, want all %d", all, s.Len())
			}
		})
	}
}

func TestSampleInOrderOfAHugeSpaceTakesTimeInTheSampleNotTheSpace(t *testing.T) {
	params, _ := sumSpace() // 1e12 configurations, no restriction
	s, err := space.NewCompiled(params, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	prev, got := -1, 0
	for i := range s.SampleInOrder(r, 200000) {
		if i <= prev || i >= s.Len() {
			t.Fatalf("index %d after %d", i, prev)
		}
		prev, got = i, got+1
	}
	if got != 200000 {
		t.Fatalf("drew %d, want 200000", got)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("200,000 of 1e12 took %v", took)
	}
}
