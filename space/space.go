// Package space builds the valid configurations of a kernel's tunable parameters under
// its restrictions, and indexes them: configuration <-> index, membership, uniform
// sampling and neighbourhoods, without materialising the cartesian product.
//
// Construction follows the chain-of-trees idea: parameters that share no restriction form
// independent groups whose product is the space; inside a group, the valid combinations are
// enumerated depth first in an order chosen so that every restriction is checked as soon as
// the parameters it reads are bound, and stored as a trie (one level per parameter).
package space

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
)

// Config is a configuration: for each parameter of the space, in the space's order, the
// index of its value in Param.Values.
type Config []int

// Clone returns a copy of c.
func (c Config) Clone() Config { return append(Config(nil), c...) }

// Restriction is a compiled restriction: a condition over some of the parameters.
//
// A restriction may also have a method HoldsAlways() bool that reports it holds for every
// combination of its parameters' values, proven rather than guessed (expr's restrictions
// prove it of integer sums and products that no value can break): construction leaves
// such a restriction out, so that it ties no parameters together and the space stays a
// product that is indexed without enumerating it.
type Restriction interface {
	// Source is the restriction as the user wrote it.
	Source() string
	// Params are the indices (into the space's parameters) that it reads.
	Params() []int
	// Holds evaluates the restriction on the bound values.
	Holds(b *Bindings) bool
}

// Bindings holds parameter values by parameter index: numbers (booleans as 0/1) in Num,
// strings in Str. Restrictions read them while the space is enumerated.
type Bindings struct {
	Num []float64
	Str []string
	// Fault is set by an evaluation that would raise in Python (division by zero); the
	// restriction then counts as not satisfied, whatever the rest of it says.
	Fault bool
	// Inexact is set with Fault by an evaluation whose exact result Python would give but
	// ktune cannot: an integer of 2**53 or more, beyond what a float64 holds exactly (Python
	// has big integers). Building a space reports it as an error rather than guess.
	Inexact bool
}

// Compiler compiles restriction expressions against a list of parameters. The expr
// package provides the standard one; keeping it behind a function value lets space stay
// free of parsing.
type Compiler func(params []Param, src string) (Restriction, error)

// Space is the set of valid configurations of a list of parameters.
type Space struct {
	params       []Param
	restrictions []Restriction
	groups       []*group
	stride       []int // stride of each group in the mixed-radix index
	size         int
	product      float64
	nums         [][]float64 // numeric value of each parameter value
	strs         [][]string  // string value of each parameter value (String params only)
	groupOf      []int       // group of each parameter
	levelOf      []int       // level of each parameter inside its group
}

// ErrTooLarge reports a space whose valid count does not fit an int.
var ErrTooLarge = errors.New("space has more valid configurations than an int can index")

// ErrEmpty is wrapped by the error of a space that no configuration satisfies.
var ErrEmpty = errors.New("the space is empty")

// BuildOptions are the optional parts of a construction.
type BuildOptions struct {
	// Progress, when not nil, is called every so many candidate combinations (about every
	// 65,536) with the fraction of the filtered cartesian product enumerated so far, from 0
	// to 1: groups weigh by the product of their values, so the fraction is a fair base for
	// an estimate of the time left. It is called from the constructing goroutine.
	Progress func(done float64)
	// MaxBytes bounds the memory that the index of valid configurations may take, in
	// bytes: a construction that would need more stops with a *TooLargeError, at once when
	// a random sample of a group's combinations shows it would, and otherwise as soon as
	// the enumeration reaches the bound. 0 is DefaultMaxBytes(), a share of the memory
	// available; a negative value is no bound.
	MaxBytes int64
}

// leafBytes is what each valid combination of a group of several parameters costs the
// index at least: its value (2 bytes) and its parent link (4) in the trie's last level.
const leafBytes = 6

// A TooLargeError is the error of a construction whose index would take more memory than
// BuildOptions.MaxBytes allows: restrictions tie parameters into a group whose valid
// combinations are too many to enumerate and hold.
type TooLargeError struct {
	Params       []string // the group's parameters
	Restrictions []string // the restrictions that tie them, as written
	Product      float64  // the group's combinations of values (those single-parameter restrictions leave)
	Valid        float64  // the group's valid combinations, estimated
	Sampled      int      // the random combinations Valid was estimated from; 0: from the enumeration so far
	Enumerated   float64  // the fraction of Product enumerated before it stopped (when Sampled is 0)
	MaxBytes     int64    // the bound
	Default      bool     // MaxBytes was DefaultMaxBytes()
}

// Error names the restrictions and parameters, says how large the group is and what to do.
func (e *TooLargeError) Error() string {
	what, tie := "restriction", "ties"
	if len(e.Restrictions) > 1 {
		what, tie = "restrictions", "tie"
	}
	quoted := make([]string, len(e.Restrictions))
	for i, r := range e.Restrictions {
		quoted[i] = fmt.Sprintf("%q", r)
	}
	how := fmt.Sprintf("estimated from %d random combinations", e.Sampled)
	if e.Sampled == 0 {
		how = fmt.Sprintf("extrapolated from the first %.2g%% enumerated", 100*e.Enumerated)
	}
	limit := FormatBytes(e.MaxBytes) + " allowed"
	if e.Default {
		limit += fmt.Sprintf(" (1/%d of the memory available)", MemoryShare)
	}
	return fmt.Sprintf("the %s %s %s the parameters %s into one group of %.3g combinations of values, about %.2g of them valid (%s): "+
		"ktune enumerates and indexes every valid combination of a group, at least %d bytes each, and these would take about %s, more than the %s; "+
		"restrict fewer parameters together (a restriction that reads fewer parameters ties fewer), give the parameters fewer values, or allow more memory where the machine has it",
		what, listSome(quoted, 3), tie, listSome(e.Params, 8), e.Product, e.Valid, how, leafBytes, FormatBytes(int64(min(e.Valid*leafBytes, math.MaxInt64/2))), limit)
}

// listSome joins the first n items, and says how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// buildCheckEvery is how many candidate combinations are enumerated between two looks at
// the context (and calls of BuildOptions.Progress): a power of two, rare enough to cost
// nothing next to the restrictions, frequent enough to stop within milliseconds.
const buildCheckEvery = 1 << 16

// New builds the space of params under the restrictions, each compiled with compile
// (expr.CompileRestriction reads Python expressions; expr.NewSpace is New with it).
// Restrictions without a compile function are an error.
func New(params []Param, restrictions []string, compile Compiler) (*Space, error) {
	return NewContext(context.Background(), params, restrictions, compile, BuildOptions{})
}

// NewContext is New that stops when ctx is done, returning ctx's error, and reports its
// progress as o says: the product of a space's values can be far too large to enumerate.
func NewContext(ctx context.Context, params []Param, restrictions []string, compile Compiler, o BuildOptions) (*Space, error) {
	if compile == nil && len(restrictions) > 0 {
		return nil, errors.New("space: restrictions without a Compiler to compile them (expr.CompileRestriction, or build with expr.NewSpace)")
	}
	rs := make([]Restriction, 0, len(restrictions))
	for _, src := range restrictions {
		r, err := compile(params, src)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return NewCompiledContext(ctx, params, rs, o)
}

// NewCompiled builds the space of params under already compiled restrictions.
func NewCompiled(params []Param, restrictions []Restriction) (*Space, error) {
	return NewCompiledContext(context.Background(), params, restrictions, BuildOptions{})
}

// NewCompiledContext is NewCompiled that stops when ctx is done, returning ctx's error,
// and reports its progress as o says.
func NewCompiledContext(ctx context.Context, params []Param, restrictions []Restriction, o BuildOptions) (*Space, error) {
	s, err := unbuilt(params, restrictions)
	if err != nil {
		return nil, err
	}
	if err := s.build(ctx, o); err != nil {
		return nil, err
	}
	return s, nil
}

// unbuilt checks the parameters and prepares their values for restrictions, without the
// valid configurations: the groups, their index and the size are left to the caller.
func unbuilt(params []Param, restrictions []Restriction) (*Space, error) {
	s := &Space{params: params, restrictions: restrictions, product: 1}
	seen := map[string]bool{}
	for i, p := range params {
		if p.Name == "" {
			return nil, fmt.Errorf("parameter %d has no name", i)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("parameter %q is defined twice", p.Name)
		}
		seen[p.Name] = true
		if len(p.Values) == 0 {
			return nil, fmt.Errorf("parameter %q has no values", p.Name)
		}
		if len(p.Values) > math.MaxUint16 {
			return nil, fmt.Errorf("parameter %q has %d values; at most %d are supported", p.Name, len(p.Values), math.MaxUint16)
		}
		// A value listed twice would make two configurations of one key. Values of other
		// kinds stay apart (True and 1, which recordings may both hold).
		type key struct {
			kind Kind
			f    float64
			s    string
		}
		vals := make(map[key]bool, len(p.Values))
		for _, v := range p.Values {
			if v.Kind() < Int || v.Kind() > String {
				return nil, fmt.Errorf("parameter %q has a value of no kind (a zero Value); make values with IntValue, FloatValue, BoolValue or StringValue", p.Name)
			}
			k := key{kind: v.Kind()}
			if v.Kind() == String {
				k.s = v.Str()
			} else {
				k.f = v.Float()
			}
			if vals[k] {
				return nil, fmt.Errorf("parameter %q lists the value %v twice", p.Name, v)
			}
			vals[k] = true
		}
		s.product *= float64(len(p.Values))
	}
	// A restriction of one's own (NewCompiled) that is nil or reads what is no parameter
	// would otherwise panic deep in the construction.
	for i, r := range restrictions {
		if r == nil {
			return nil, fmt.Errorf("restriction %d is nil", i)
		}
		for _, p := range r.Params() {
			if p < 0 || p >= len(params) {
				return nil, fmt.Errorf("restriction %d %q reads parameter %d, but there are %d parameters (indices 0 to %d)", i, r.Source(), p, len(params), len(params)-1)
			}
		}
	}
	s.nums = make([][]float64, len(params))
	s.strs = make([][]string, len(params))
	for i, p := range params {
		s.nums[i] = make([]float64, len(p.Values))
		for k, v := range p.Values {
			s.nums[i][k] = v.Float()
			if v.Kind() == String {
				if s.strs[i] == nil {
					s.strs[i] = make([]string, len(p.Values))
				}
				s.strs[i][k] = v.s
			}
		}
	}
	return s, nil
}

// Params returns the parameters, in the order given to New.
func (s *Space) Params() []Param { return s.params }

// Restrictions returns the compiled restrictions.
func (s *Space) Restrictions() []Restriction { return s.restrictions }

// Len returns the number of valid configurations.
func (s *Space) Len() int { return s.size }

// Product returns the size of the cartesian product of the parameter values.
func (s *Space) Product() float64 { return s.product }

// At returns the configuration with index i (0 <= i < Len) in dst, which it allocates when
// nil or too short. It costs O(number of parameters).
func (s *Space) At(i int, dst Config) Config {
	if i < 0 || i >= s.size {
		panic(fmt.Sprintf("space: index %d out of range [0, %d)", i, s.size))
	}
	if cap(dst) < len(s.params) {
		dst = make(Config, len(s.params))
	}
	dst = dst[:len(s.params)]
	for g, gr := range s.groups {
		gi := i / s.stride[g]
		i -= gi * s.stride[g]
		gr.at(gi, dst)
	}
	return dst
}

// Index returns the index of c and whether c is a valid configuration of the space.
// It costs O(number of parameters × log(values per parameter)).
func (s *Space) Index(c Config) (int, bool) {
	if len(c) != len(s.params) {
		return 0, false
	}
	for p, v := range c {
		if v < 0 || v >= len(s.params[p].Values) {
			return 0, false
		}
	}
	idx := 0
	for g, gr := range s.groups {
		gi, ok := gr.index(c)
		if !ok {
			return 0, false
		}
		idx += gi * s.stride[g]
	}
	return idx, true
}

// Contains reports whether c is a valid configuration.
func (s *Space) Contains(c Config) bool {
	_, ok := s.Index(c)
	return ok
}

// Satisfies evaluates the restrictions on any configuration of the cartesian product and
// returns the first one violated, or nil. c must be a configuration of the product: one
// value index per parameter, each below its parameter's count of values.
func (s *Space) Satisfies(c Config) Restriction {
	b := &Bindings{Num: make([]float64, len(s.params)), Str: make([]string, len(s.params))}
	for p, v := range c {
		b.Num[p] = s.nums[p][v]
		if s.strs[p] != nil {
			b.Str[p] = s.strs[p][v]
		}
	}
	for _, r := range s.restrictions {
		if !r.Holds(b) {
			return r
		}
	}
	return nil
}

// Values returns the typed values of configuration c, which must be of the product (see
// Satisfies; Contains tells whether it is valid too).
func (s *Space) Values(c Config) []Value {
	out := make([]Value, len(c))
	for p, v := range c {
		out[p] = s.params[p].Values[v]
	}
	return out
}

// HasValues reports whether values are c's, one per parameter, as Value.Equal compares
// them (Python's equality). It allocates nothing: a tuning session checks every
// evaluation's values with it.
func (s *Space) HasValues(c Config, values []Value) bool {
	if len(values) != len(c) {
		return false
	}
	for p, l := range c {
		v, w := &values[p], &s.params[p].Values[l]
		if v.kind == String || w.kind == String {
			if v.kind != w.kind || v.s != w.s {
				return false
			}
		} else if v.f != w.f {
			return false
		}
	}
	return true
}

// ConfigOf returns the configuration with the given values (one per parameter, in order).
// It does not check the restrictions; use Contains for that.
func (s *Space) ConfigOf(values []Value) (Config, error) {
	if len(values) != len(s.params) {
		return nil, fmt.Errorf("configuration has %d values, the space has %d parameters", len(values), len(s.params))
	}
	c := make(Config, len(values))
	for p, v := range values {
		k := s.params[p].Index(v)
		if k < 0 {
			return nil, fmt.Errorf("parameter %s has no value %v", s.params[p].Name, v)
		}
		c[p] = k
	}
	return c, nil
}

// Format writes a configuration as name=value pairs.
func (s *Space) Format(c Config) string {
	b := make([]byte, 0, 16*len(c))
	for p, v := range c {
		if p > 0 {
			b = append(b, ", "...)
		}
		b = append(b, s.params[p].Name...)
		b = append(b, '=')
		b = append(b, s.params[p].Values[v].String()...)
	}
	return string(b)
}

// Sample returns a uniformly random valid configuration.
func (s *Space) Sample(r *rand.Rand, dst Config) Config {
	return s.At(r.IntN(s.size), dst)
}

// SampleIndices returns n distinct indices drawn uniformly without replacement
// (all of them, shuffled, when n >= Len; none when n <= 0).
func (s *Space) SampleIndices(r *rand.Rand, n int) []int {
	if n <= 0 {
		return []int{} // as SampleInOrder yields nothing
	}
	if n >= s.size {
		out := make([]int, s.size)
		for i := range out {
			out[i] = i
		}
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	// Floyd's algorithm: n draws, no O(Len) memory.
	chosen := make(map[int]struct{}, n)
	out := make([]int, 0, n)
	for j := s.size - n; j < s.size; j++ {
		t := r.IntN(j + 1)
		if _, dup := chosen[t]; dup {
			t = j
		}
		chosen[t] = struct{}{}
		out = append(out, t)
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// SampleInOrder yields n distinct indices drawn uniformly without replacement (all of
// them when n >= Len), in increasing order, with O(1) memory and O(n) expected time: Vitter's
// sequential sampling (Algorithm D, with Algorithm A once the sample is a large part of
// what is left), for samples too large to hold. Yielding stops when yield returns false.
func (s *Space) SampleInOrder(r *rand.Rand, n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		if n <= 0 {
			return
		}
		if n >= s.size {
			for i := 0; i < s.size; i++ {
				if !yield(i) {
					return
				}
			}
			return
		}
		sampleD(r, n, s.size, yield)
	}
}

// sampleD is Vitter's Algorithm D (ACM TOMS 13(1), 1987): it chooses n of the indices
// 0..N-1 in increasing order by drawing the gaps between them.
func sampleD(r *rand.Rand, n, N int, yield func(int) bool) {
	u := func() float64 { return 1 - r.Float64() } // in (0, 1]
	const alphaInv = 13                            // Algorithm A takes over when N <= 13n
	cur := -1
	nreal, Nreal := float64(n), float64(N)
	ninv := 1 / nreal
	vprime := math.Exp(math.Log(u()) * ninv)
	qu1, qu1real := N-n+1, Nreal-nreal+1
	threshold := alphaInv * n
	for n > 1 && threshold < N {
		nmin1inv := 1 / (nreal - 1)
		var gap int
		for {
			var x float64
			for {
				x = Nreal * (1 - vprime)
				gap = int(x)
				if gap < qu1 {
					break
				}
				vprime = math.Exp(math.Log(u()) * ninv)
			}
			v := u()
			negS := -float64(gap)
			y1 := math.Exp(math.Log(v*Nreal/qu1real) * nmin1inv)
			vprime = y1 * (1 - x/Nreal) * (qu1real / (negS + qu1real))
			if vprime <= 1 {
				break // accepted by the squeeze
			}
			y2, top := 1.0, Nreal-1
			var bottom float64
			var limit int
			if n-1 > gap {
				bottom, limit = Nreal-nreal, N-gap
			} else {
				bottom, limit = Nreal+negS-1, qu1
			}
			for t := N - 1; t >= limit; t-- {
				y2 = y2 * top / bottom
				top--
				bottom--
			}
			if Nreal/(Nreal-x) >= y1*math.Exp(math.Log(y2)*nmin1inv) {
				vprime = math.Exp(math.Log(u()) * nmin1inv)
				break // accepted
			}
			vprime = math.Exp(math.Log(u()) * ninv)
		}
		cur += gap + 1
		if !yield(cur) {
			return
		}
		N -= gap + 1
		Nreal = float64(N)
		n--
		nreal = float64(n)
		ninv = nmin1inv
		qu1 -= gap
		qu1real = float64(qu1)
		threshold += alphaInv
	}
	// Algorithm A: a gap by sequential search
	top, Nreal := float64(N-n), float64(N)
	for ; n >= 2; n-- {
		v := u()
		gap := 0
		quot := top / Nreal
		for quot > v {
			gap++
			top--
			Nreal--
			quot *= top / Nreal
		}
		cur += gap + 1
		if !yield(cur) {
			return
		}
		Nreal--
	}
	if n == 1 {
		cur += int(Nreal*r.Float64()) + 1
		yield(cur)
	}
}

// GroupOf returns the group (as numbered by Groups) of parameter p.
func (s *Space) GroupOf(p int) int { return s.groupOf[p] }

// Broken appends to dst the groups (as numbered by Groups) whose parameters' values in c
// are not a valid combination, and returns it: empty exactly when c is valid. c must hold
// a value index for every parameter.
func (s *Space) Broken(c Config, dst []int) []int {
	for g, gr := range s.groups {
		if _, ok := gr.index(c); !ok {
			dst = append(dst, g)
		}
	}
	return dst
}

// SampleGroup sets the parameters of group g in c to a uniformly random valid combination
// of them, leaving the other parameters as they are. In a space of one group it draws
// as Sample does.
func (s *Space) SampleGroup(r *rand.Rand, g int, c Config) {
	gr := s.groups[g]
	gr.at(r.IntN(gr.count), c)
}

// SampleGroupWithin draws, as SampleGroup does, a uniformly random valid combination of
// group g's parameters into dst, leaving dst's other parameters as they are, and returns
// its weighted distance to c over the group's parameters: the sum of weight[p] * |dst[p] -
// c[p]|. ok reports that the distance is at most limit; past it the sum stops early and
// dst is left partly drawn, so use dst only when ok.
func (s *Space) SampleGroupWithin(r *rand.Rand, g int, c, dst Config, weight []float64, limit float64) (d float64, ok bool) {
	gr := s.groups[g]
	return gr.atWithin(r.IntN(gr.count), c, dst, weight, limit)
}

// Groups returns the parameter indices of each independent group, in enumeration order.
func (s *Space) Groups() [][]int {
	out := make([][]int, len(s.groups))
	for g, gr := range s.groups {
		out[g] = append([]int(nil), gr.params...)
	}
	return out
}

// MemoryBytes estimates the memory held by the index structures.
func (s *Space) MemoryBytes() int {
	n := 0
	for _, g := range s.groups {
		for l := range g.val {
			n += 2*len(g.val[l]) + 4*len(g.parent[l]) + 4*len(g.first[l])
		}
	}
	return n
}

func mulOverflows(a, b int) bool {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return hi != 0 || lo > math.MaxInt64
}
