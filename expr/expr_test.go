package expr

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ktune/ktune/space"
)

func TestEvalValuesPythonListExpressions(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"[1, 2, 4] + list(range(32, 64+1, 32))", []string{"1", "2", "4", "32", "64"}},
		{"[2**i for i in range(0, 6)]", []string{"1", "2", "4", "8", "16", "32"}},
		{"[i for i in range(1, 11)]", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
		{"[i*0.5 for i in range(3)]", []string{"0.0", "0.5", "1.0"}},
		{"[x for x in range(10) if x % 3 == 0]", []string{"0", "3", "6", "9"}},
		{"list(range(10, 0, -4))", []string{"10", "6", "2"}},
		{"['a', \"b\"]", []string{"a", "b"}},
		{"[True, False]", []string{"True", "False"}},
		{"[1.5e3, -2]", []string{"1500.0", "-2"}},
		{"[2**-1, 7//2, -7//2, -7 % 3, 7 % -3, 7/2]", []string{"0.5", "3", "-4", "2", "-2", "3.5"}},
		{"[0]*3", []string{"0", "0", "0"}},
		{"2 * [1]", []string{"1", "1"}},
		{"['ab' * 2, 2 * 'c', 'x' * -1 + 'y', 'z' * True]", []string{"abab", "cc", "y", "z"}},
		{"32", []string{"32"}},
	}
	for _, tt := range tests {
		vals, err := EvalValues(tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		var got []string
		for _, v := range vals {
			got = append(got, v.String())
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func scopeOf(names ...string) (MapScope, *Env) {
	s := MapScope{}
	for i, n := range names {
		s[n] = Var{Slot: i, Kind: space.Int}
	}
	return s, &Env{Num: make([]float64, len(names)), Str: make([]string, len(names))}
}

func TestPredicatesFollowPython(t *testing.T) {
	// Expected values are what CPython 3 prints for the same expressions with a=7, b=2, c=-3.
	tests := []struct {
		src  string
		want bool
	}{
		{"a // b == 3", true},
		{"c // b == -2", true},
		{"c % b == 1", true},
		{"a % c == -2", true},
		{"a / b == 3.5", true},
		{"b ** 3 == 8", true},
		{"-b ** 2 == -4", true},
		{"2 ** -1 == 0.5", true},
		{"1 < b < a", true},
		{"1 < a < b", false},
		{"32 <= a*b <= 1024", false},
		{"32 <= a*b*4*2 <= 1024", true},
		{"not a == 7", false},
		{"a == 7 and not b == 3", true},
		{"a in [1, 7, 9]", true},
		{"a not in [1, 7, 9]", false},
		{"a in (1, 2)", false},
		{"min(a, b, c) == -3 and max(a, b) == 7 and abs(c) == 3", true},
		{"max([a, b]) == 7", true},
		{"(a or 5) == 7", true},
		{"(0 or b) * 3 == 6", true},
		{"(a and b) == 2", true},
		{"a % 0 == 0", false},        // ZeroDivisionError counts as not satisfied
		{"a / (b-2) != 1", false},    // likewise
		{"a % (0 != 0) == 0", false}, // a constant bool as divisor: False is 0 (found by FuzzParse)
		{"a % (1 == 1) == 0", true},
		{"a ** (1 == 1) == 7", true},
		{"a if b > 1 else c", true},
		{"True + True == 2", true},
		{"a", true},
		{"c + 3", false},
		{"a*b >= 14.0", true},
		{"(a * b) / c == -14/3", true},
	}
	for _, tt := range tests {
		scope, env := scopeOf("a", "b", "c")
		env.Num[0], env.Num[1], env.Num[2] = 7, 2, -3
		p, err := CompilePredicate(tt.src, scope)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got := p.Eval(env); got != tt.want {
			t.Errorf("%s = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestStringAndBoolParameters(t *testing.T) {
	scope := MapScope{"method": {Slot: 0, Kind: space.String}, "flag": {Slot: 1, Kind: space.Bool}}
	env := &Env{Num: []float64{0, 1}, Str: []string{"shared", ""}}
	tests := []struct {
		src  string
		want bool
	}{
		{"method == 'shared'", true},
		{"method != \"shared\"", false},
		{"method in ['global', 'shared']", true},
		{"flag == True", true},
		{"flag and method == 'shared'", true},
		{"not flag", false},
		{"method == 1", false},
		{"'ha' in method", true},
	}
	for _, tt := range tests {
		p, err := CompilePredicate(tt.src, scope)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got := p.Eval(env); got != tt.want {
			t.Errorf("%s = %v, want %v", tt.src, got, tt.want)
		}
	}
}

// The compiled closures must agree with the exact interpreter on every input.
func TestCompiledAgreesWithInterpreter(t *testing.T) {
	exprs := []string{
		"a % b == 0", "a // b * b == a", "(a*b)/c >= 2", "a % (b*c) == 0 or c > a",
		"32 <= a*b <= 1024", "-a // b == c", "a ** 2 % 7 < b", "a % -b == c % b",
		"min(a, b) * max(b, c) != a", "abs(a - b) in [0, 1, 2]", "not (a == b and b == c)",
		"(a or b) // (c or 1) > 0", "a / b == c / b", "round(a / b) == c",
		"a & b == c & 3", "(a | b) ^ c > 0", "a << (b % 5) > c", "a >> (b % 7) == c", "~a == b", "a ** (b // 7) > c",
		"round(a / 4, b % 3) > c / 8", "round(a * 5, b // 10) == c", "(a & (a - 1)) == 0",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, src := range exprs {
		scope, env := scopeOf("a", "b", "c")
		p, err := CompilePredicate(src, scope)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		n, _ := Parse(src)
		for k := 0; k < 3000; k++ {
			vals := map[string]any{}
			for i, name := range []string{"a", "b", "c"} {
				x := int64(r.IntN(41) - 20)
				vals[name] = x
				env.Num[i] = float64(x)
			}
			want, err := interp(n, vals)
			wantB := err == nil && truthy(want) // a Python exception: not satisfied
			if got := p.Eval(env); got != wantB {
				t.Fatalf("%s with %v: compiled %v, interpreter %v (err %v)", src, vals, got, want, err)
			}
		}
	}
}

func TestErrorsNamePositionAndExpectation(t *testing.T) {
	scope, _ := scopeOf("block_size_x", "block_size_y")
	tests := []struct {
		src     string
		pos     int
		contain string
	}{
		{"block_size_x * ", 15, "expected a number"},
		{"block_size_x * (block_size_y", 28, `expected ")"`},
		{"block_sise_x > 2", 0, `unknown name "block_sise_x"`},
		{"block_size_x > 2 block_size_y", 17, "expected an operator"},
		{"block_size_x $ 2", 13, "unexpected character"},
		{"foo(block_size_x)", 0, `unknown function "foo"`},
		{"block_size_x == 'a' < 3", 0, "not supported"},
		{"", 0, "empty expression"},
		{"block_size_x is 3", 13, `"is" is not supported`},
		// C's logical operators, as Kernel Tuner users may carry them over from kernel code
		{"block_size_x > 1 && block_size_y > 1", 17, `"&&" is not an operator of Python expressions; write "and"`},
		{"block_size_x > 1 || block_size_y > 1", 17, `write "or"`},
		{"!(block_size_x > 1)", 0, `write "not"`},
		{"block_size_x != 1 and !block_size_y", 22, `write "not"`},
		// = for ==, the other habit
		{"block_size_x = 16", 13, `"=" assigns, which an expression cannot; write "==" to compare`},
		{"block_size_x <= 16 and block_size_y = 2", 36, `write "=="`},
		{"(y := block_size_x) > 1", 4, "unexpected character"},
		// Kernel Tuner's restrictions and metrics as lambdas of a dict
		{`lambda p: p["block_size_x"] > 1`, 0, `found keyword "lambda": write the lambda's body alone`},
		{`p["block_size_x"] * p['block_size_y'] <= 1024`, 1, `write p["block_size_x"] as block_size_x, the name alone`},
		{`block_size_x * p['block_size_y'] <= 1024`, 16, `write p["block_size_y"] as block_size_y`},
		{`block_size_x[0] > 1`, 12, `expressions have no subscripts`},
		{`block_size_x <= math.ceil(block_size_y / 2)`, 20, `not a module's functions (math.ceil); write np.arange(a, b, s) as list(range(a, b, s)) and math.ceil(a / b) as (a + b - 1) // b`},
		{`p["GFLOP/s"] / 2`, 1, `"GFLOP/s" is no name they can read; name what it is (a metric) with letters, digits and _`},
	}
	for _, tt := range tests {
		_, err := CompilePredicate(tt.src, scope)
		if err == nil {
			t.Errorf("%q: no error", tt.src)
			continue
		}
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: error %T %v, want *Error", tt.src, err, err)
			continue
		}
		if !strings.Contains(e.Msg, tt.contain) {
			t.Errorf("%q: message %q does not contain %q", tt.src, e.Msg, tt.contain)
		}
		if tt.pos >= 0 && e.Pos != tt.pos && tt.contain != "not supported" {
			t.Errorf("%q: position %d, want %d (%v)", tt.src, e.Pos, tt.pos, err)
		}
	}
	_, err := CompilePredicate("block_sise_x > 2", scope)
	if !strings.Contains(err.Error(), `did you mean "block_size_x"`) {
		t.Errorf("no suggestion in %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"32 <= a*b <= 1024", "[2**i for i in range(0, 6)]", "a % (b // 2) == 0 or not c", "min(a,b) in [1,2]", "'x' + \"y\"", "a if b else c",
		"s == 'shared' and f", "f * a + (s in ['x', 'shared'])"} {
		f.Add(s)
	}
	// the parameters of every kind: a, b, c numbers, s a string, f a bool
	mixed := MapScope{"a": {Slot: 0, Kind: space.Int}, "b": {Slot: 1, Kind: space.Float},
		"s": {Slot: 2, Kind: space.String}, "f": {Slot: 3, Kind: space.Bool}, "c": {Slot: 4, Kind: space.Int}}
	f.Fuzz(func(t *testing.T, src string) {
		scope, env := scopeOf("a", "b", "c")
		if p, err := CompilePredicate(src, scope); err == nil {
			p.Eval(env)
		}
		menv := &Env{Num: []float64{3, 0.5, 0, 1, -2}, Str: []string{"", "", "shared", "", ""}}
		if p, err := CompilePredicate(src, mixed); err == nil {
			p.Eval(menv)
		}
		if n, err := Parse(src); err == nil && len(Names(n)) == 0 && len(src) < 64 {
			_, _ = interp(n, nil)
		}
	})
}

func BenchmarkPredicate(b *testing.B) {
	scope, env := scopeOf("MWG", "MDIMC", "VWM")
	p, err := CompilePredicate("MWG % (MDIMC * VWM) == 0", scope)
	if err != nil {
		b.Fatal(err)
	}
	env.Num[0], env.Num[1], env.Num[2] = 64, 16, 2
	for b.Loop() {
		p.Eval(env)
	}
}

func TestHugeListsAreRefused(t *testing.T) {
	for _, src := range []string{"[] * 10**18", "[0] * 10**10", "list(range(10**12))", "(0,)*(14444444)",
		"[0] * 2**20 + [1]", "[x for x in range(2**21)]", "['ab' * 10**9]", "['x' * 2**19 for i in range(2**20)]"} {
		if _, err := EvalValues(src); err == nil || !strings.Contains(err.Error(), "longer than") {
			t.Errorf("%s: %v", src, err)
		}
	}
}

func TestIntegerPowerBySquaring(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want int64
	}{
		{"2**10", 1024}, {"3**0", 1}, {"0**0", 1}, {"(-2)**3", -8}, {"(-1)**(10**15+1)", -1},
		{"1**11**11*1", 1}, {"2**62", 1 << 62}, {"(-2)**63", math.MinInt64}, {"7**22", 3909821048582988049},
	} {
		v, err := EvalValues(tt.src)
		if err != nil || len(v) != 1 || v[0].Int() != tt.want {
			t.Errorf("%s = %v, %v; want %d", tt.src, v, err, tt.want)
		}
	}
	for _, src := range []string{"2**63", "3**40", "(-2)**64", "10**19"} {
		if _, err := EvalValues(src); err == nil || !strings.Contains(err.Error(), "beyond 64 bits") {
			t.Errorf("%s: %v, want an overflow error", src, err)
		}
	}
}
