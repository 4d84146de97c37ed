package strategy

import (
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
		return x, nil
	case int64:
		return int(x), nil
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > math.MaxInt32 {
			return 0, fmt.Errorf("option %s: %v is not an integer", name, x)
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
	i, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("option %s: %q is not an integer", name, s)
	}
	return i, nil
}

// Float returns option name as a number, or def when it is not set.
func (o Options) Float(name string, def float64) (float64, error) {
	v, ok := o[name]
	if !ok {
		return def, nil
	}
	var s string
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case fmt.Stringer:
		s = x.String()
	case string:
		s = x
	default:
		return 0, fmt.Errorf("option %s: %v (%T) is not a number", name, v, v)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("option %s: %q is not a number", name, s)
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
