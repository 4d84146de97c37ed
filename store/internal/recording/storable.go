package recording

import (
	"fmt"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store/internal/sqlrow"
)

// Storable returns rec as every store keeps it (see sqlrow's text rules): rec itself
// when its text is all UTF-8 without NUL bytes where the store cannot keep them, else a
// copy with U+FFFD in their place and, among its warnings, one for each field that
// changed, naming it (an evaluation's message, warnings and device change without one,
// as in every write). A file in another encoding (Latin-1) is imported rather than
// refused, and reads back, and is found again by ImportRecordingOnce, as it was stored.
// It refuses a recording of which two distinct names of parameters, values of one
// parameter (among its values and its configurations) or names of metrics would become
// one: two configurations would be stored as one.
func Storable(rec *result.Recording) (*result.Recording, error) {
	if storable(rec) {
		return rec, nil
	}
	r := *rec
	r.Warnings = append([]string(nil), rec.Warnings...)
	note := func(what string) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s held NUL bytes or bytes that are not UTF-8, stored with U+FFFD in their place", what))
	}
	for _, f := range []struct {
		what string
		text *string
		keep func(string) string
	}{
		{"the format's name", &r.Format, sqlrow.StorableText},
		{"the source", &r.Source, sqlrow.StorableText},
		{"the device's name", &r.Device, sqlrow.StorableText},
		{"the backend's name", &r.Backend, sqlrow.StorableText},
		{"the kernel's name", &r.Kernel, sqlrow.StorableText},
		{"the problem size", &r.ProblemSize, sqlrow.StorableText},
		{"the objective's name", &r.Objective, sqlrow.StorableText},
	} {
		if t := f.keep(*f.text); t != *f.text {
			*f.text = t
			note(f.what)
		}
	}
	if r.Restrictions != nil {
		r.Restrictions = make([]string, len(rec.Restrictions))
		for i, s := range rec.Restrictions {
			if r.Restrictions[i] = sqlrow.ValidText(s); r.Restrictions[i] != s {
				note(fmt.Sprintf("restriction %d", i))
			}
		}
	}
	for i, w := range r.Warnings {
		r.Warnings[i] = sqlrow.ValidText(w)
	}
	params, changed, err := sqlrow.ValidParams(rec.Params)
	if err != nil {
		return nil, err
	}
	r.Params = params
	for _, name := range changed {
		note("the name or values of parameter " + name)
	}
	// the values of each parameter, among its values and every configuration's
	seen := make([]map[string]string, len(rec.Params))
	for p, param := range rec.Params {
		seen[p] = make(map[string]string, len(param.Values))
		if _, _, err := sqlrow.DistinctValid(param.Name, param.Values, seen[p]); err != nil {
			return nil, err
		}
	}
	r.Evaluations = make([]result.Evaluation, len(rec.Evaluations))
	configsChanged, metricsChanged := map[int]bool{}, false
	for k := range rec.Evaluations {
		e := rec.Evaluations[k]
		if len(e.Config) == len(rec.Params) {
			config := make([]space.Value, len(e.Config))
			for p, v := range e.Config {
				valid, changed, err := sqlrow.DistinctValid(rec.Params[p].Name, []space.Value{v}, seen[p])
				if err != nil {
					return nil, fmt.Errorf("evaluation %d: %w", k, err)
				}
				config[p] = valid[0]
				configsChanged[p] = configsChanged[p] || changed
			}
			e.Config = config
		} // else: refused as it is stored (sqlrow.EvaluationArgs)
		if metrics, changed, err := storableMetrics(e.Metrics); err != nil {
			return nil, fmt.Errorf("evaluation %d: %w", k, err)
		} else if changed {
			e.Metrics, metricsChanged = metrics, true
		}
		e.Message, e.Warnings, e.Device = sqlrow.StorableText(e.Message), sqlrow.StorableText(e.Warnings), sqlrow.StorableText(e.Device)
		r.Evaluations[k] = e
	}
	for p, param := range r.Params {
		if configsChanged[p] {
			note(fmt.Sprintf("configurations' values of parameter %q", param.Name))
		}
	}
	if metricsChanged {
		note("names of metrics")
	}
	return &r, nil
}

// storableMetrics returns m with its names ValidText, and whether any changed (m itself
// when none did); it refuses two names that would become one.
func storableMetrics(m map[string]float64) (map[string]float64, bool, error) {
	changed := false
	for name := range m {
		if sqlrow.ValidText(name) != name {
			changed = true
			break
		}
	}
	if !changed {
		return m, false, nil
	}
	out := make(map[string]float64, len(m))
	was := make(map[string]string, len(m))
	for name, v := range m {
		valid := sqlrow.ValidText(name)
		if other, ok := was[valid]; ok {
			return nil, false, fmt.Errorf("the metrics %q and %q are one metric, %q, once U+FFFD stands for their bytes that are not UTF-8, as the store keeps them; give their names as UTF-8 (convert the file's encoding)",
				other, name, valid)
		}
		was[valid] = name
		out[valid] = v
	}
	return out, true, nil
}

// storable reports whether rec's text is all as the store keeps it, so that Storable
// returns rec itself: the common case, checked without copying.
func storable(rec *result.Recording) bool {
	for _, s := range []string{rec.Format, rec.Source, rec.Device, rec.Backend, rec.Kernel, rec.ProblemSize, rec.Objective} {
		if sqlrow.StorableText(s) != s {
			return false
		}
	}
	for _, ss := range [][]string{rec.Restrictions, rec.Warnings} {
		for _, s := range ss {
			if sqlrow.ValidText(s) != s {
				return false
			}
		}
	}
	for _, p := range rec.Params {
		if sqlrow.ValidText(p.Name) != p.Name || !validValues(p.Values) {
			return false
		}
	}
	for k := range rec.Evaluations {
		e := &rec.Evaluations[k]
		if !validValues(e.Config) || sqlrow.StorableText(e.Message) != e.Message ||
			sqlrow.StorableText(e.Warnings) != e.Warnings || sqlrow.StorableText(e.Device) != e.Device {
			return false
		}
		for name := range e.Metrics {
			if sqlrow.ValidText(name) != name {
				return false
			}
		}
	}
	return true
}

// validValues reports whether vs's string values are all UTF-8.
func validValues(vs []space.Value) bool {
	_, changed := sqlrow.ValidValues(vs)
	return !changed
}
