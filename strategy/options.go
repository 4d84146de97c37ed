package strategy

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Options are a strategy's hyperparameters by name. Values come from Go code (int,
// float64, bool, string), decoded JSON (float64, json.Number, bool, string) or the command
// line (string), so the getters accept each of those forms.
type Options map[string]any

// Int returns option name as an integer, or def when it is not set.
func (o Options) Int(name string, def int) (int, error) {
	v, ok := o[name]
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case int:
		return intInRange(name, int64(x))
	case int64:
		return intInRange(name, x)
	case float64:
		if x != math.Trunc(x) {
			return 0, fmt.Errorf("option %s: %v is not an integer", name, x)
		}
		if math.Abs(x) > math.MaxInt32 {
			return 0, fmt.Errorf("option %s: %v is out of range (at most %d in size)", name, x, math.MaxInt32)
		}
		return int(x), nil
	case fmt.Stringer: // json.Number
		return parseInt(name, x.String())
	case string:
		return parseInt(name, x)
	}
	return 0, fmt.Errorf("option %s: %v (%T) is not an integer", name, v, v)
}

func parseInt(name, s string) (int, error) {
	i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		if f, ferr := strconv.ParseFloat(strings.TrimSpace(s), 64); ferr == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return 0, fmt.Errorf("option %s: %s is out of range (at most %d in size)", name, strings.TrimSpace(s), math.MaxInt32)
		}
		return 0, fmt.Errorf("option %s: %q is not an integer", name, s)
	}
	return intInRange(name, i)
}

// intInRange bounds every integer option alike, whatever form it came in: no option
// counts beyond what an int32 holds, and a value past it is a typo, not a request.
func intInRange(name string, i int64) (int, error) {
	if i > math.MaxInt32 || i < -math.MaxInt32 {
		return 0, fmt.Errorf("option %s: %d is out of range (at most %d in size)", name, i, math.MaxInt32)
	}
	return int(i), nil
}

// maxPopulation is the most configurations a population-based strategy keeps per
// generation (popsize of genetic, gls, pso, firefly, diffevo's population, irace's
// candidates): far beyond any useful setting, and small enough that the memory a
// population takes stays in megabytes.
const maxPopulation = 100_000

// checkPopulation returns an error when option name's value n lies outside [lo,
// maxPopulation].
func checkPopulation(name string, n, lo int) error {
	if n < lo || n > maxPopulation {
		return fmt.Errorf("option %s: %d, want %d to %d", name, n, lo, maxPopulation)
	}
	return nil
}

// Float returns option name as a number, or def when it is not set. NaN and the
// infinities are refused: no option means anything by them, and a NaN passes range checks
// written as comparisons.
func (o Options) Float(name string, def float64) (float64, error) {
	v, ok := o[name]
	if !ok {
		return def, nil
	}
	var s string
	var f float64
	parse := false
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case fmt.Stringer:
		s, parse = x.String(), true
	case string:
		s, parse = x, true
	default:
		return 0, fmt.Errorf("option %s: %v (%T) is not a number", name, v, v)
	}
	if parse {
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("option %s: %q is not a number", name, s)
		}
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("option %s: %v is not a finite number", name, f)
	}
	return f, nil
}

// Bool returns option name as a boolean, or def when it is not set. Strings accept the
// spellings of strconv.ParseBool and Python's True/False.
func (o Options) Bool(name string, def bool) (bool, error) {
	v, ok := o[name]
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil {
			return false, fmt.Errorf("option %s: %q is not a boolean", name, x)
		}
		return b, nil
	}
	return false, fmt.Errorf("option %s: %v (%T) is not a boolean", name, v, v)
}

// Choice returns option name, which must be one of allowed (in any case: "hamming" is
// "Hamming"), spelled as in allowed, or def when it is not set.
func (o Options) Choice(name, def string, allowed ...string) (string, error) {
	v, ok := o[name]
	if !ok {
		return def, nil
	}
	if s, isString := v.(string); isString {
		s = strings.TrimSpace(s)
		if i := slices.IndexFunc(allowed, func(a string) bool { return strings.EqualFold(a, s) }); i >= 0 {
			return allowed[i], nil
		}
	}
	return "", fmt.Errorf("option %s: %v is not one of %s", name, v, strings.Join(allowed, ", "))
}
