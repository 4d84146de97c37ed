package sensitivity

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ktune/ktune/space"
)

// RunOptions are the options of a tuning run that measures a Saltelli design (the saltelli
// strategy's options), as written in the run's strategy options.
type RunOptions struct {
	// N is the number of base rows; 0 means as many as the budget allows.
	N int
	// SecondOrder adds the points for second-order indices (default true).
	SecondOrder bool
	// Params names the parameters analysed; nil means all.
	Params []string
}

// RunOptionNames are the option names ParseRunOptions accepts.
var RunOptionNames = []string{"n", "params", "second_order"}

// ParseRunOptions reads a run's options: "n" (an integer), "second_order" (a boolean) and
// "params" (comma-separated names, or a list of names), each as Go values, decoded JSON or
// command-line strings. Other names are rejected.
func ParseRunOptions(options map[string]any) (RunOptions, error) {
	ro := RunOptions{SecondOrder: true}
	var unknown []string
	for name := range options {
		if !slices.Contains(RunOptionNames, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return ro, fmt.Errorf("unknown option %s (want %s)", strings.Join(unknown, ", "), strings.Join(RunOptionNames, ", "))
	}
	if v, ok := options["n"]; ok {
		n, err := optionInt(v)
		if err != nil {
			return ro, fmt.Errorf("option n: %w", err)
		}
		if n < 0 {
			return ro, fmt.Errorf("option n: %d base rows", n)
		}
		ro.N = n
	}
	if v, ok := options["second_order"]; ok {
		b, err := optionBool(v)
		if err != nil {
			return ro, fmt.Errorf("option second_order: %w", err)
		}
		ro.SecondOrder = b
	}
	if v, ok := options["params"]; ok {
		names, err := optionNames(v)
		if err != nil {
			return ro, fmt.Errorf("option params: %w", err)
		}
		ro.Params = names
	}
	return ro, nil
}

func optionInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > math.MaxInt32 {
			return 0, fmt.Errorf("%v is not an integer", x)
		}
		return int(x), nil
	case fmt.Stringer: // json.Number
		return optionInt(x.String())
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Errorf("%q is not an integer", x)
		}
		return i, nil
	}
	return 0, fmt.Errorf("%v (%T) is not an integer", v, v)
}

func optionBool(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil {
			return false, fmt.Errorf("%q is not a boolean", x)
		}
		return b, nil
	}
	return false, fmt.Errorf("%v (%T) is not a boolean", v, v)
}

func optionNames(v any) ([]string, error) {
	var names []string
	switch x := v.(type) {
	case string:
		names = strings.Split(x, ",")
	case []string:
		names = slices.Clone(x)
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%v (%T) is not a parameter name", e, e)
			}
			names = append(names, s)
		}
	default:
		return nil, fmt.Errorf("%v (%T) is not a list of parameter names", v, v)
	}
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if names[i] == "" {
			return nil, errors.New("empty parameter name")
		}
	}
	if len(names) == 0 {
		return nil, errors.New("no parameter names")
	}
	return names, nil
}

// Design draws the design a run with these options measures on sp: designSeed seeds it
// and budget (the run's budget of unique evaluations; 0 when it has none) sets the rows
// when N is 0, floor(budget / DesignRows).
func (ro RunOptions) Design(sp *space.Space, designSeed uint64, budget int) (*Design, error) {
	params := sp.Params()
	var subset []int
	for _, name := range ro.Params {
		p := slices.IndexFunc(params, func(q space.Param) bool { return q.Name == name })
		if p < 0 {
			names := make([]string, len(params))
			for i, q := range params {
				names[i] = q.Name
			}
			return nil, fmt.Errorf("sensitivity: no parameter %q (the space has %s)", name, strings.Join(names, ", "))
		}
		subset = append(subset, p)
	}
	n := ro.N
	if n == 0 {
		if budget <= 0 {
			return nil, errors.New("sensitivity: neither a budget nor a number of base rows (option n) sets the design's size")
		}
		per := DesignRows(len(params), len(subset), ro.SecondOrder)
		n = budget / per
		if n == 0 {
			return nil, fmt.Errorf("sensitivity: a budget of %d evaluations is below one design row of %d points", budget, per)
		}
	}
	return NewDesign(sp, n, Options{Subset: subset, SecondOrder: ro.SecondOrder, Seed: designSeed})
}

// RunDesign rebuilds the design a saltelli tuning run measured from the run's seed, budget
// and strategy options, so its stored evaluations can be mapped back onto the design's
// points. The run's session seeds its generator from runSeed and the strategy draws the
// design's seed as the generator's first value, which is what RunDesign repeats.
func RunDesign(sp *space.Space, runSeed uint64, budget int, options map[string]any) (*Design, error) {
	ro, err := ParseRunOptions(options)
	if err != nil {
		return nil, fmt.Errorf("sensitivity: %w", err)
	}
	r := rand.New(rand.NewPCG(runSeed, runSeed^0x9e3779b97f4a7c15))
	return ro.Design(sp, r.Uint64(), budget)
}
