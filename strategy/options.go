package strategy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
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
	return 0, fmt.Errorf("option %s: %s is not an integer", name, valueText(v))
}

func parseInt(name, s string) (int, error) {
	i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		// A whole number written as a float ("1e3", "20.0") is that number, as ParseValue
		// makes it on the command line; only one past int64 is out of range here.
		if f, ferr := strconv.ParseFloat(strings.TrimSpace(s), 64); ferr == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			if math.Abs(f) > math.MaxInt32 {
				return 0, fmt.Errorf("option %s: %s is out of range (at most %d in size)", name, strings.TrimSpace(s), math.MaxInt32)
			}
			return int(f), nil
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
		return 0, fmt.Errorf("option %s: %s is not a number", name, valueText(v))
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
// spellings of strconv.ParseBool (true, false, 1, 0, t, f, True, False, ...), and the
// numbers 1 and 0 (from ParseValue or a JSON file) are true and false as well.
func (o Options) Bool(name string, def bool) (bool, error) {
	v, ok := o[name]
	if !ok {
		return def, nil
	}
	var s string
	switch x := v.(type) {
	case bool:
		return x, nil
	case int:
		s = strconv.Itoa(x)
	case int64:
		s = strconv.FormatInt(x, 10)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case fmt.Stringer: // json.Number
		s = x.String()
	case string:
		s = x
	default:
		return false, fmt.Errorf("option %s: %s is not a boolean (true or false, 1 or 0)", name, valueText(v))
	}
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return false, fmt.Errorf("option %s: %q is not a boolean (true or false, 1 or 0)", name, s)
	}
	return b, nil
}

// ParseValue reads an option value written as text, the one way every command does
// (--option OPT=VALUE, --strategy and --strategies NAME:OPT=VALUE, a hypertune grid): a
// whole number becomes an int, another finite number a float64, true or false (in any
// case) a bool, and anything else stays text, trimmed. The getters take every one of these
// forms (a boolean option 1 and 0 too), so a value means the same whichever command it is
// given to.
func ParseValue(text string) any {
	s := strings.TrimSpace(text)
	if i, err := strconv.Atoi(s); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f
	}
	switch strings.ToLower(s) {
	case "true":
		return true
	case "false":
		return false
	}
	return s
}

// ParseOption reads one option written OPT=VALUE, its value with ParseValue.
func ParseOption(kv string) (name string, value any, err error) {
	k, v, ok := strings.Cut(kv, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return "", nil, fmt.Errorf("option %q is not OPT=VALUE", strings.TrimSpace(kv))
	}
	return k, ParseValue(v), nil
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
	// valueText quotes a string, so that an empty or blank value shows as "" rather than
	// as nothing between the option's name and "is not one of"
	return "", fmt.Errorf("option %s: %s is not one of %s", name, valueText(v), strings.Join(allowed, ", "))
}

// List returns option name as a list of items, and whether it is set. On the command line
// a list is written comma-separated (a,b) or in brackets ([a,b], [1, 2], ['a', 'b']: the
// form that stays whole inside 'ktune bench --strategies'), and one number is a list of
// one; from Go or JSON it is a list of strings or numbers, or one number. Items are trimmed, unquoted and must not be empty or repeated.
func (o Options) List(name string) ([]string, bool, error) {
	v, ok := o[name]
	if !ok || v == nil {
		return nil, false, nil
	}
	var items []string
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			s = s[1 : len(s)-1]
		}
		if strings.TrimSpace(s) == "" {
			return nil, true, fmt.Errorf("option %s: %q lists nothing", name, x)
		}
		items = strings.Split(s, ",")
	case int, int64, float64, fmt.Stringer:
		// one number, as ParseValue reads order=2 or JSON holds it: a list of one item
		items = []string{fmt.Sprint(x)}
	case []string:
		items = x
	case []int:
		for _, i := range x {
			items = append(items, strconv.Itoa(i))
		}
	case []any:
		for _, e := range x {
			switch e.(type) {
			case string, int, int64, float64, fmt.Stringer:
				items = append(items, fmt.Sprint(e))
			default:
				return nil, true, fmt.Errorf("option %s: %s is not a name or a number", name, valueText(e))
			}
		}
	default:
		return nil, true, fmt.Errorf("option %s: %s is not a list", name, valueText(v))
	}
	if len(items) == 0 {
		return nil, true, fmt.Errorf("option %s: an empty list", name)
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		it = unquote(strings.TrimSpace(it))
		switch {
		case it == "":
			return nil, true, fmt.Errorf("option %s: an empty item in %v", name, v)
		case strings.ContainsAny(it, "[]"):
			return nil, true, fmt.Errorf("option %s: %q: write a list as a,b or [a,b], without brackets inside", name, it)
		case slices.Contains(out, it):
			return nil, true, fmt.Errorf("option %s: %s given twice", name, it)
		}
		out = append(out, it)
	}
	return out, true, nil
}

// unquote takes off one pair of matching quotes ('a' or "a"), as a list written in
// Python's or JSON's syntax has them.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// SplitList splits s at every sep outside brackets, so that a list option written [a,b]
// stays whole in a list separated by commas ('ktune bench --strategies', the values of a
// hypertune grid). Unbalanced brackets are an error.
func SplitList(s string, sep byte) ([]string, error) {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth == 0 {
				return nil, fmt.Errorf("%q: ] without [ before it", s)
			}
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("%q: [ without ] after it", s)
	}
	return append(out, s[start:]), nil
}

// valueText writes an option value of the wrong kind for an error in the words of the
// JSON it most often comes from (a defaults file): null, a list or an object as JSON
// writes them, rather than Go's "<nil> (<nil>)" or "[1 2] ([]interface {})".
func valueText(v any) string {
	if v == nil {
		return "null"
	}
	kind := ""
	switch reflect.ValueOf(v).Kind() {
	case reflect.Slice, reflect.Array:
		kind = "a list"
	case reflect.Map, reflect.Struct:
		kind = "an object"
	case reflect.Bool:
		return fmt.Sprint(v)
	default:
		if _, isString := v.(string); isString {
			return fmt.Sprintf("%q", v)
		}
		return fmt.Sprint(v)
	}
	if data, err := json.Marshal(v); err == nil {
		return string(data) + " (" + kind + ")"
	}
	return fmt.Sprintf("%v (%s)", v, kind)
}
