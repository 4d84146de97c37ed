package space_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
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

// The QA's space with a restriction that most combinations satisfy: a group of 1e12
// combinations that the memory bound refuses before enumerating anything, from a sample.
func TestConstructionPastTheMemoryBoundIsRefusedAtOnce(t *testing.T) {
	params, rs := sumSpace()
	rs[0] = strings.Replace(rs[0], "== 3", ">= 6", 1)
	start := time.Now()
	_, err := space.NewContext(context.Background(), params, rs, expr.CompileRestriction, space.BuildOptions{MaxBytes: 1 << 20})
	var tl *space.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("err = %v, want a *space.TooLargeError", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("refused after %v: want at once, before the enumeration", took)
	}
	if tl.Sampled == 0 || tl.Product != 1e12 || tl.Valid < 0.9e12 || tl.MaxBytes != 1<<20 || tl.Default {
		t.Errorf("error %+v: want a sampled estimate near 1e12 valid of a product of 1e12, bound 1 MiB", tl)
	}
	if !slices.Equal(tl.Restrictions, rs) || len(tl.Params) != 12 {
		t.Errorf("restrictions %q, parameters %q: want the restriction and its 12 parameters", tl.Restrictions, tl.Params)
	}
	for _, want := range []string{rs[0], "p0, p1", "1.0 MiB allowed", "restrict fewer parameters together"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
}

// With no bound (MaxBytes < 0) nothing is refused: the construction goes on until it is
// done or, here, its context ends it.
func TestConstructionWithoutABoundIsNotRefused(t *testing.T) {
	params, _ := sumSpace()
	params2, _ := sumSpace()
	for i := range params2 {
		params2[i].Name = fmt.Sprintf("q%d", i)
	}
	params = append(params, params2...) // a product of 1e24, past what an int64 of bytes holds
	var names []string
	for _, p := range params {
		names = append(names, p.Name)
	}
	rs := []string{strings.Join(names, "+") + " >= 6"}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := space.NewContext(ctx, params, rs, expr.CompileRestriction, space.BuildOptions{MaxBytes: -1})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
}

// modSpace is a group that a sample cannot tell from one within a bound near its size:
// 2% of its 8e6 combinations are valid.
func modSpace() ([]space.Param, []string) {
	vals := make([]space.Value, 200)
	for v := range vals {
		vals[v] = space.IntValue(int64(v))
	}
	return []space.Param{{Name: "a", Values: vals}, {Name: "b", Values: vals}, {Name: "c", Values: vals}},
		[]string{"(a + b + c) % 50 == 0"}
}

func TestConstructionStopsAtTheMemoryBound(t *testing.T) {
	params, rs := modSpace()
	whole, err := space.New(params, rs, expr.CompileRestriction)
	if err != nil {
		t.Fatal(err)
	}
	need := int64(whole.MemoryBytes())
	_, err = space.NewContext(context.Background(), params, rs, expr.CompileRestriction, space.BuildOptions{MaxBytes: need / 2})
	var tl *space.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("a bound of half the %d bytes the index takes: err = %v, want a *space.TooLargeError", need, err)
	}
	if tl.Sampled != 0 || tl.Enumerated <= 0 || tl.Enumerated >= 1 {
		t.Errorf("error %+v: want it found by the enumeration, part-way", tl)
	}
	if got, want := tl.Valid, float64(whole.Len()); got < 0.7*want || got > 1.3*want {
		t.Errorf("estimated %g valid combinations, there are %g", got, want)
	}
	if !strings.Contains(err.Error(), "extrapolated from the first") {
		t.Errorf("message %q does not say where the estimate comes from", err)
	}
	// a bound it fits in builds it, whole
	for _, max := range []int64{2 * need, -1} {
		s, err := space.NewContext(context.Background(), params, rs, expr.CompileRestriction, space.BuildOptions{MaxBytes: max})
		if err != nil || s.Len() != whole.Len() {
			t.Errorf("MaxBytes %d: %v, want the space of %d configurations", max, err, whole.Len())
		}
	}
}

func TestDefaultMaxBytesIsAShareOfTheAvailableMemory(t *testing.T) {
	got := space.DefaultMaxBytes()
	if got < 64<<20 {
		t.Errorf("DefaultMaxBytes() = %d, want at least 64 MiB", got)
	}
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skip("no /proc/meminfo")
	}
	var avail int64
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			fmt.Sscan(rest, &avail)
		}
	}
	if avail*1024/space.MemoryShare > 64<<20 && got > avail*1024/space.MemoryShare*2 {
		t.Errorf("DefaultMaxBytes() = %s with %s available: want at most 1/%d of it", space.FormatBytes(got), space.FormatBytes(avail*1024), space.MemoryShare)
	}
}

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"4096", 4096}, {"512MiB", 512 << 20}, {"4G", 4 << 30}, {"4gb", 4 << 30}, {"1.5 GiB", 1536 << 20}, {"2T", 2 << 40}, {"10B", 10}, {"3k", 3072}} {
		if got, err := space.ParseBytes(c.in); err != nil || got != c.want {
			t.Errorf("ParseBytes(%q) = %d, %v, want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "GiB", "4 PiB", "4 GiBs", "-1", "1e30", "99999999999T"} {
		if got, err := space.ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", bad, got)
		}
	}
}
