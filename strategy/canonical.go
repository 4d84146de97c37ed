package strategy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A run is known by its strategy and options: a command resumes the stored run of the same
// ones, a benchmark takes the cells of them. Options come as the user wrote them, and one
// setting has many spellings (neighbourhood=hamming and Hamming, candidates=1e3 and 1000,
// restart=1 and true), which only the strategy can tell apart by reading them. Canonical
// writes each option's value the one way the strategy reads it, so that equal settings
// compare equal.

// Kind says how a strategy reads an option's values, so that Canonical can write each
// value in one spelling. The zero Kind leaves the option's values as given.
type Kind struct {
	// canonical reads option name of o as the strategy does, to the value in its one
	// spelling; it refuses what the strategy refuses.
	canonical func(o Options, name string) (any, error)
}

// IntKind is an option read with Options.Int: its value is an int (1e3, "1000" and 1000.0
// are 1000).
func IntKind() Kind {
	return Kind{func(o Options, name string) (any, error) { return o.Int(name, 0) }}
}

// FloatKind is an option read with Options.Float: its value is a float64 ("0.50", 5e-1
// and 0.5 are 0.5; 2 is 2.0).
func FloatKind() Kind {
	return Kind{func(o Options, name string) (any, error) { return o.Float(name, 0) }}
}

// BoolKind is an option read with Options.Bool: its value is true or false (1, "t" and
// "True" are true).
func BoolKind() Kind {
	return Kind{func(o Options, name string) (any, error) { return o.Bool(name, false) }}
}

// ChoiceKind is an option read with Options.Choice among allowed: its value is spelled as
// allowed lists it (hamming is Hamming).
func ChoiceKind(allowed ...string) Kind {
	return Kind{func(o Options, name string) (any, error) { return o.Choice(name, "", allowed...) }}
}

// ListKind is an option read with Options.List: its value is the items, trimmed and
// unquoted, in brackets and separated by commas ("[a,b]"), the form every command reads
// back whole. A list's order is kept: it may mean something (greedymls's order).
func ListKind() Kind {
	return Kind{func(o Options, name string) (any, error) {
		items, _, err := o.List(name)
		if err != nil {
			return nil, err
		}
		return "[" + strings.Join(items, ",") + "]", nil
	}}
}

// Canonical returns opts of strategy name with each value written the one way the
// strategy reads it (its Option's Kind): a choice as the strategy lists it, a number as an
// int or a float64, a boolean as true or false, a list in brackets. Options that mean the
// same are then equal, however they were spelled, and New builds the same strategy from
// them as from opts. Options New refuses are refused with New's error; an option
// documented without a Kind keeps its value as given. Options not set stay unset: their
// defaults may depend on the budget.
func Canonical(name string, opts map[string]any) (map[string]any, error) {
	if _, err := New(name, opts); err != nil {
		return nil, err
	}
	f, _ := Lookup(name)
	out := make(map[string]any, len(opts))
	for k, v := range opts {
		out[k] = v
		i := slices.IndexFunc(f.Options, func(o Option) bool { return o.Name == k })
		if i < 0 || f.Options[i].Kind.canonical == nil {
			continue
		}
		c, err := f.Options[i].Kind.canonical(Options(opts), k)
		if err != nil {
			// New took the value: the option's Kind is not how the strategy reads it
			return nil, fmt.Errorf("strategy %s: %w", name, err)
		}
		out[k] = c
	}
	return out, nil
}

// SameOptions reports whether a and b are the same options of strategy name: equal once
// written canonically (Canonical), so that neighbourhood=hamming is neighbourhood=Hamming
// and candidates=1e3 is candidates=1000. Options one of which the strategy refuses (a
// run stored by a ktune whose strategy took other options) are compared as given, as
// JSON writes them. No options and empty options are the same.
func SameOptions(name string, a, b map[string]any) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	ca, errA := Canonical(name, a)
	cb, errB := Canonical(name, b)
	if errA != nil || errB != nil {
		ca, cb = a, b
	}
	ja, errA := json.Marshal(ca)
	jb, errB := json.Marshal(cb)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
