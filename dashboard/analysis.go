package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

// Selection is what the analysis endpoint analyses: an objective, the parameters whose
// Sobol indices are computed, and the evaluations that pass the filters.
type Selection struct {
	Objective string              // objective or recorded metric; "" for the run's objective
	Params    []string            // nil for every parameter
	Keep      map[string][]string // per parameter, the values (as labels) whose evaluations are kept; a parameter not named keeps all
	// Statuses are the statuses kept, FoundWrongStatus among them for the successes of
	// configurations found wrong, which ok does not keep; nil for all.
	Statuses []string
	// Devices are the devices kept, as the evaluations name them ("opencl:1"), NoDevice
	// for the evaluations no device measured; nil for all.
	Devices []string
}

// FoundWrongStatus names, in a selection's statuses, the successes (status ok) of the
// configurations found wrong in the run (a wrong_answer evaluation of the same
// configuration: result.Recording.FoundWrong). They count nowhere as a success, so the
// status ok leaves them out, and the page's status filter offers them apart, as the list
// of runs and the status line count them.
const FoundWrongStatus = "found_wrong"

// NoDevice names, in a selection's devices, the evaluations that no device measured (an
// import, a configuration refused over a device limit before compiling): device names
// are BACKEND:INDEX, never "-".
const NoDevice = "-"

// ParseSelection reads a selection from the analysis endpoint's query: objective=NAME,
// params=a,b,c, keep=NAME=VALUE (repeated: the values of NAME to keep) and
// status=ok,compile_error (or repeated; found_wrong for the successes of configurations
// found wrong, which ok leaves out) and device=opencl:0,opencl:1 (or repeated; "-"
// for the evaluations no device measured). ps are the run's parameters, which the names
// and values are checked against.
func ParseSelection(q url.Values, ps []space.Param) (Selection, error) {
	sel := Selection{Objective: q.Get("objective")}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	find := func(what, name string) (int, error) {
		i := slices.Index(names, name)
		if i < 0 {
			return 0, fmt.Errorf("%s: the run has no parameter %q (it has %s)", what, name, strings.Join(names, ", "))
		}
		return i, nil
	}
	if q.Has("params") {
		text := q.Get("params")
		if strings.TrimSpace(text) == "" {
			return sel, errors.New("params= is empty: select at least one parameter for the sensitivity analysis (or leave params out for all)")
		}
		for _, name := range strings.Split(text, ",") {
			name = strings.TrimSpace(name)
			if _, err := find("params="+text, name); err != nil {
				return sel, err
			}
			if slices.Contains(sel.Params, name) {
				return sel, fmt.Errorf("params=%s: %s is given twice", text, name)
			}
			sel.Params = append(sel.Params, name)
		}
	}
	for _, kv := range q["keep"] {
		name, label, ok := strings.Cut(kv, "=")
		if !ok {
			return sel, fmt.Errorf("keep=%s: want keep=PARAMETER=VALUE, one for each value to keep", kv)
		}
		i, err := find("keep="+kv, name)
		if err != nil {
			return sel, err
		}
		if !slices.ContainsFunc(ps[i].Values, func(v space.Value) bool { return v.String() == label }) {
			labels := make([]string, len(ps[i].Values))
			for j, v := range ps[i].Values {
				labels[j] = v.String()
			}
			return sel, fmt.Errorf("keep=%s: %s takes no value %q (its values: %s)", kv, name, label, strings.Join(labels, ", "))
		}
		if sel.Keep == nil {
			sel.Keep = map[string][]string{}
		}
		sel.Keep[name] = append(sel.Keep[name], label)
	}
	for _, list := range q["status"] {
		for _, st := range strings.Split(list, ",") {
			if st = strings.TrimSpace(st); st == "" {
				return sel, fmt.Errorf("status=%s: an empty status (name the statuses to keep, of %s; leave status out for all)", list, strings.Join(statusNames(), ", "))
			}
			if _, err := result.ParseStatus(st); err != nil && st != FoundWrongStatus {
				return sel, fmt.Errorf("status=%s: no status %q (the statuses: %s; name those to keep, or leave status out for all)", list, st, strings.Join(statusNames(), ", "))
			}
			if !slices.Contains(sel.Statuses, st) {
				sel.Statuses = append(sel.Statuses, st)
			}
		}
	}
	for _, list := range q["device"] {
		for _, d := range strings.Split(list, ",") {
			if d = strings.TrimSpace(d); d == "" {
				return sel, fmt.Errorf("device=%s: an empty device name (name the devices to keep, as the evaluations name them, such as opencl:0; %s for those no device measured)", list, NoDevice)
			}
			if !slices.Contains(sel.Devices, d) {
				sel.Devices = append(sel.Devices, d)
			}
		}
	}
	return sel, nil
}

// deviceName is the name of the device that measured e in a selection's devices.
func deviceName(e *result.Evaluation) string {
	if e.Device == "" {
		return NoDevice
	}
	return e.Device
}

// statusName is e's status in a selection's statuses: FoundWrongStatus for a success of
// a configuration found wrong (wrong, of the whole run), its status otherwise.
func statusName(e *result.Evaluation, wrong func(*result.Evaluation) bool) string {
	if e.Status == result.OK && wrong(e) {
		return FoundWrongStatus
	}
	return e.Status.String()
}

// checkDevices reports a device of the selection that measured none of rec's
// evaluations, naming those that did: a device is known from its evaluations only.
func (sel Selection) checkDevices(rec *result.Recording) error {
	if sel.Devices == nil {
		return nil
	}
	seen := map[string]bool{}
	for i := range rec.Evaluations {
		seen[deviceName(&rec.Evaluations[i])] = true
	}
	for _, d := range sel.Devices {
		if !seen[d] {
			return fmt.Errorf("device=%s: no evaluation of the run was measured on %s (its devices: %s; %s for the evaluations no device measured)",
				strings.Join(sel.Devices, ","), d, strings.Join(sortedKeys(seen), ", "), NoDevice)
		}
	}
	return nil
}

// Filtered is the part of rec that passes the selection's filters: the evaluations of the
// kept values, statuses and devices, over parameters whose value lists hold the kept
// values only (so that a filtered full product is the full product of its values, and its
// Sobol indices exact). It shares rec's evaluations.
func (sel Selection) Filtered(rec *result.Recording) *result.Recording {
	out := *rec
	out.Params = slices.Clone(rec.Params)
	keep := make([]map[string]bool, len(rec.Params))
	for i, p := range rec.Params {
		labels, ok := sel.Keep[p.Name]
		if !ok {
			continue
		}
		keep[i] = map[string]bool{}
		for _, l := range labels {
			keep[i][l] = true
		}
		out.Params[i].Values = slices.DeleteFunc(slices.Clone(p.Values), func(v space.Value) bool { return !keep[i][v.String()] })
	}
	statuses := map[string]bool{}
	for _, s := range sel.Statuses {
		statuses[s] = true
	}
	devices := map[string]bool{}
	for _, d := range sel.Devices {
		devices[d] = true
	}
	wrong := rec.FoundWrong()
	out.Evaluations = nil
next:
	for _, e := range rec.Evaluations {
		if sel.Statuses != nil && !statuses[statusName(&e, wrong)] {
			continue
		}
		if sel.Devices != nil && !devices[deviceName(&e)] {
			continue
		}
		for i, v := range e.Config {
			if i < len(keep) && keep[i] != nil && !keep[i][v.String()] {
				continue next
			}
		}
		out.Evaluations = append(out.Evaluations, e)
	}
	return &out
}

// Analysis is the answer of /api/runs/ID/analysis: the significance and Sobol indices of
// the selected parameters for the objective, over the evaluations that pass the filters.
type Analysis struct {
	Objective     string `json:"objective"`
	Maximize      bool   `json:"maximize"`
	DirectionFrom string `json:"direction_from"`
	Evaluations   int    `json:"evaluations"` // that pass the filters
	// RunEvaluations are all the run's evaluations, those the filters leave out too, and
	// Configurations the configurations of its space (a recording without restrictions
	// is its own space), 0 where they cannot be counted.
	RunEvaluations int      `json:"run_evaluations"`
	Configurations int      `json:"configurations"`
	Valid          int      `json:"valid"`  // configurations of those with a value of the objective
	Params         []string `json:"params"` // the selected parameters
	// Significance holds the selected parameters' correlations with the objective, in
	// their order.
	Significance []sensitivity.Correlation `json:"significance"`
	// Sobol holds their first- and total-order indices (without bootstrap intervals:
	// 'ktune analyze' gives them); null when they cannot be computed, Warnings says why.
	Sobol    *sensitivity.Sobol `json:"sobol"`
	Warnings []string           `json:"warnings,omitempty"`
}

// Analyze computes the analysis of the selection of rec (of the stored run info, nil for
// a file) with package analysis, as 'ktune analyze --objective O --params P' does over
// the same evaluations (whose intervals it leaves out).
func Analyze(ctx context.Context, name string, rec *result.Recording, info *store.RunInfo, sel Selection) (*Analysis, error) {
	filtered := sel.Filtered(rec)
	if len(filtered.Evaluations) == 0 {
		return nil, fmt.Errorf("no evaluation passes the filters (of %d): show more values, statuses or devices", len(rec.Evaluations))
	}
	filtering := len(sel.Keep) > 0 || sel.Statuses != nil || sel.Devices != nil
	if info != nil && filtering && info.Strategy == "saltelli" {
		// a filtered Saltelli design is no design: the indices are those of the table
		plain := *info
		plain.Strategy = ""
		info = &plain
	}
	o := analysis.Options{Parameters: true, Objective: sel.Objective, Params: sel.Params, Bootstrap: -1, Seed: 1}
	in := analysis.Input{Name: name, Rec: filtered, Run: info}
	if filtering {
		in.Of = rec
	}
	res, err := analysis.Analyze(ctx, in, o)
	if err != nil {
		return nil, err
	}
	out := &Analysis{Objective: res.Objective, Maximize: res.Maximize, DirectionFrom: res.DirectionFrom,
		Evaluations: len(filtered.Evaluations), RunEvaluations: len(rec.Evaluations), Configurations: res.Configurations,
		Valid: res.Valid, Params: sel.Params, Significance: []sensitivity.Correlation{}, Sobol: res.Sobol, Warnings: res.Warnings}
	if out.Params == nil {
		for _, p := range rec.Params {
			out.Params = append(out.Params, p.Name)
		}
	}
	for _, p := range out.Params {
		for _, c := range res.Significance {
			if c.Param == p {
				out.Significance = append(out.Significance, c)
			}
		}
	}
	return out, nil
}

func (s *Server) apiAnalysis(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := s.runID(ctx, r)
	if err != nil {
		fail(w, err)
		return
	}
	ps, err := s.params(ctx, id)
	if err != nil {
		fail(w, err)
		return
	}
	sel, err := ParseSelection(r.URL.Query(), ps)
	if err != nil {
		fail(w, &httpError{http.StatusBadRequest, err})
		return
	}
	rec, info, name := s.rec, (*store.RunInfo)(nil), s.name
	if s.st != nil {
		i, err := s.st.Run(ctx, id)
		if err == nil {
			rec, err = s.st.Recording(ctx, id)
		}
		if err != nil {
			fail(w, s.runErr(ctx, id, err))
			return
		}
		info, name = &i, analysis.RunName(id, i.Kernel)
	}
	if err := sel.checkDevices(rec); err != nil {
		fail(w, &httpError{http.StatusBadRequest, err})
		return
	}
	a, err := Analyze(ctx, name, rec, info, sel)
	if err != nil {
		if ctx.Err() != nil {
			return // the page asked for another selection, or went
		}
		// what cannot be analysed (no value of the objective, a constant one) is no
		// fault of the server
		fail(w, &httpError{http.StatusUnprocessableEntity, err})
		return
	}
	writeJSON(w, a)
}
