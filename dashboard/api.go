package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/stats"
	"github.com/ktune/ktune/store"
)

// Run is a run as the endpoints describe it: /api/runs lists them, /api/runs/ID gives one
// with its parameters.
type Run struct {
	ID          int64      `json:"id"` // RecordingID for a recording read from a file
	Name        string     `json:"name"`
	Kind        string     `json:"kind"`   // tuning, simulation, import; "file" for a recording read from a file
	Status      string     `json:"status"` // running, finished or interrupted
	Failed      bool       `json:"failed,omitempty"`
	Kernel      string     `json:"kernel"`
	Device      string     `json:"device"`
	Strategy    string     `json:"strategy,omitempty"`
	Seed        uint64     `json:"seed,omitempty"`
	Source      string     `json:"source,omitempty"`
	Objective   string     `json:"objective"`
	Maximize    bool       `json:"maximize"`
	Started     *time.Time `json:"started,omitempty"`
	Finished    *time.Time `json:"finished,omitempty"`
	Evaluations int        `json:"evaluations"`
	// Succeeded counts the successful evaluations of configurations found wrong nowhere
	// in the run; FoundWrong those of configurations found wrong (a wrong_answer
	// evaluation of the same configuration: result.Recording.FoundWrong), which are none.
	Succeeded  int `json:"succeeded"`
	FoundWrong int `json:"found_wrong,omitempty"`
	// Best is the best objective among the successful evaluations; null when none.
	Best       *float64 `json:"best_objective"`
	BestConfig Values   `json:"best_configuration,omitempty"`
	Params     []Param  `json:"params,omitempty"` // the tuning parameters, in the run's order
}

// Param is a tuning parameter and its values; Labels are the values as text (Python's
// str(), as Kernel Tuner writes them), which the analysis endpoint's keep filter takes.
type Param struct {
	Name   string   `json:"name"`
	Values Values   `json:"values"`
	Labels []string `json:"labels"`
}

// Values are parameter values, in JSON as their natural types (numbers, strings, true
// and false).
type Values []space.Value

// UnmarshalJSON reads values as MarshalJSON writes them: whole numbers as ints.
func (vs *Values) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var xs []any
	if err := d.Decode(&xs); err != nil {
		return err
	}
	*vs = make(Values, len(xs))
	for i, x := range xs {
		v, err := space.ValueOf(x)
		if err != nil {
			return err
		}
		(*vs)[i] = v
	}
	return nil
}

// Evaluation is one evaluation of a run, as /api/runs/ID/evaluations gives it.
type Evaluation struct {
	Index  int    `json:"index"`  // its place in the run's order, from 0
	Config Values `json:"config"` // one value per parameter
	// At are the values' positions in their parameters' value lists, parallel to Config.
	At        []int                  `json:"at"`
	Status    string                 `json:"status"` // ok, compile_error, runtime_error, timeout, wrong_answer, device_limit, restricted
	Objective stats.Float            `json:"objective"`
	Metrics   map[string]stats.Float `json:"metrics,omitempty"`
	Message   string                 `json:"message,omitempty"`
	Time      *time.Time             `json:"time,omitempty"`
	// Device is the device that measured it ("opencl:1"), where the store kept one: the
	// page offers it as a field to colour, place and filter by once a run has several.
	Device string `json:"device,omitempty"`
}

// Evaluations is the answer of /api/runs/ID/evaluations?after=N: the run's evaluations
// after its first N, and the run as it is now.
type Evaluations struct {
	Run         Run          `json:"run"`
	After       int          `json:"after"`
	Evaluations []Evaluation `json:"evaluations"`
	// Metrics names every metric of these evaluations, true where higher is better.
	Metrics map[string]bool `json:"metrics"`
}

// apiError is the body of every error answer.
type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		// the status is sent already; the client sees a cut answer
		return
	}
}

func writeError(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(apiError{err.Error()})
}

// httpError is an error with the HTTP status it is answered with.
type httpError struct {
	code int
	err  error
}

func (e *httpError) Error() string { return e.err.Error() }
func (e *httpError) Unwrap() error { return e.err }

func fail(w http.ResponseWriter, err error) {
	var he *httpError
	if errors.As(err, &he) {
		writeError(w, he.code, he.err)
		return
	}
	writeError(w, http.StatusInternalServerError, err)
}

func badRequest(format string, a ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Errorf(format, a...)}
}

// runID reads the {id} of a request's path and checks that the server has that run.
func (s *Server) runID(ctx context.Context, r *http.Request) (int64, error) {
	text := r.PathValue("id")
	id, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, badRequest("run id %q: not a number (the ids are those of /api/runs and 'ktune runs')", text)
	}
	if s.rec != nil {
		if id != RecordingID {
			return 0, &httpError{http.StatusNotFound, fmt.Errorf("no run %d: this dashboard shows one recording, %s, as run %d", id, s.name, RecordingID)}
		}
		return id, nil
	}
	if _, err := s.st.Run(ctx, id); err != nil {
		return 0, s.runErr(ctx, id, err)
	}
	return id, nil
}

// runErr is err, from reading run id, as an answer: a run the store does not hold is a
// 404 that says which runs it holds.
func (s *Server) runErr(ctx context.Context, id int64, err error) error {
	if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("run %d in %s: %w", id, s.db, err)
	}
	runs, lerr := s.st.Runs(ctx, store.RunFilter{})
	msg := fmt.Sprintf("%s holds no run %d", s.db, id)
	switch {
	case lerr != nil:
	case len(runs) == 0:
		msg += ": it holds no runs yet"
	case len(runs) == 1:
		msg += fmt.Sprintf(": it holds run %d", runs[0].ID)
	default:
		lo, hi := runs[0].ID, runs[0].ID
		for _, r := range runs {
			lo, hi = min(lo, r.ID), max(hi, r.ID)
		}
		msg += fmt.Sprintf(": it holds %d runs, ids %d to %d", len(runs), lo, hi)
	}
	return &httpError{http.StatusNotFound, errors.New(msg)}
}

// storedRun describes a run of the store from its info and tally.
func storedRun(info store.RunInfo, t store.Tally) Run {
	r := Run{ID: info.ID, Name: analysis.RunName(info.ID, info.Kernel), Kind: string(info.Kind), Status: string(info.Status),
		Kernel: info.Kernel, Device: info.Device, Strategy: info.Strategy, Seed: info.Seed, Source: info.Source,
		Objective: info.Objective, Maximize: info.Maximize, Evaluations: t.Evaluations, Succeeded: t.Succeeded - t.FoundWrong, FoundWrong: t.FoundWrong}
	if r.Objective == "" {
		r.Objective = "time"
	}
	if !info.Started.IsZero() {
		started := info.Started
		r.Started = &started
	}
	if !info.Finished.IsZero() {
		finished := info.Finished
		r.Finished = &finished
	}
	if t.HasBest {
		best := t.Best.Objective
		r.Best, r.BestConfig = &best, t.Best.Config
	}
	r.Failed = info.Status == store.StatusFinished && r.Evaluations > 0 && r.Succeeded == 0
	return r
}

// recordingRun describes the server's recording.
func (s *Server) recordingRun() Run {
	rec := s.rec
	total, ok := rec.Counts()
	wrong, foundWrong := rec.FoundWrong(), 0
	for i := range rec.Evaluations {
		if e := &rec.Evaluations[i]; !e.Failed() && wrong(e) {
			foundWrong++
		}
	}
	ok -= foundWrong
	r := Run{ID: RecordingID, Name: s.name, Kind: "file", Status: string(store.StatusFinished), Kernel: rec.Kernel,
		Device: rec.Device, Source: rec.Source, Objective: rec.Objective, Maximize: rec.Maximize,
		Evaluations: total, Succeeded: ok, FoundWrong: foundWrong}
	if r.Objective == "" {
		r.Objective = "time"
	}
	if best, found := rec.Best(); found {
		r.Best, r.BestConfig = &best.Objective, best.Config
	}
	r.Failed = total > 0 && ok == 0
	return r
}

// run describes run id as it is now.
func (s *Server) run(ctx context.Context, id int64) (Run, error) {
	if s.rec != nil {
		return s.recordingRun(), nil
	}
	info, err := s.st.Run(ctx, id)
	if err != nil {
		return Run{}, s.runErr(ctx, id, err)
	}
	t, err := s.st.Tally(ctx, id)
	if err != nil {
		return Run{}, s.runErr(ctx, id, err)
	}
	return storedRun(info, t), nil
}

// params returns run id's parameters.
func (s *Server) params(ctx context.Context, id int64) ([]space.Param, error) {
	if s.rec != nil {
		return s.rec.Params, nil
	}
	info, err := s.st.Run(ctx, id)
	if err != nil {
		return nil, s.runErr(ctx, id, err)
	}
	sp, err := s.st.Space(ctx, info.SpaceID)
	if err != nil {
		return nil, fmt.Errorf("run %d in %s: its space: %w", id, s.db, err)
	}
	return sp.Params, nil
}

func paramsJSON(ps []space.Param) []Param {
	out := make([]Param, len(ps))
	for i, p := range ps {
		labels := make([]string, len(p.Values))
		for j, v := range p.Values {
			labels[j] = v.String()
		}
		out[i] = Param{Name: p.Name, Values: p.Values, Labels: labels}
	}
	return out
}

func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request) {
	runs, err := s.runs(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, runs)
}

// runs lists the runs, oldest first.
func (s *Server) runs(ctx context.Context) ([]Run, error) {
	if s.rec != nil {
		return []Run{s.recordingRun()}, nil
	}
	infos, err := s.st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.db, err)
	}
	out := make([]Run, 0, len(infos))
	for _, info := range infos {
		t, err := s.st.Tally(ctx, info.ID)
		if err != nil {
			return nil, fmt.Errorf("run %d in %s: %w", info.ID, s.db, err)
		}
		out = append(out, storedRun(info, t))
	}
	return out, nil
}

func (s *Server) apiRun(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := s.runID(ctx, r)
	if err != nil {
		fail(w, err)
		return
	}
	run, err := s.run(ctx, id)
	if err == nil {
		var ps []space.Param
		if ps, err = s.params(ctx, id); err == nil {
			run.Params = paramsJSON(ps)
		}
	}
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, run)
}

func (s *Server) apiEvaluations(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := s.runID(ctx, r)
	if err != nil {
		fail(w, err)
		return
	}
	after := 0
	if text := r.URL.Query().Get("after"); text != "" {
		if after, err = strconv.Atoi(text); err != nil || after < 0 {
			fail(w, badRequest("after=%q: want the number of evaluations the client has already (0 or more)", text))
			return
		}
	}
	out, err := s.evaluations(ctx, id, after)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, out)
}

// evaluations returns run id's evaluations after its first after.
func (s *Server) evaluations(ctx context.Context, id int64, after int) (*Evaluations, error) {
	run, err := s.run(ctx, id)
	if err != nil {
		return nil, err
	}
	ps, err := s.params(ctx, id)
	if err != nil {
		return nil, err
	}
	// es are the evaluations after the first after
	var es []result.Evaluation
	switch {
	case s.rec != nil:
		es = s.rec.Evaluations[min(after, len(s.rec.Evaluations)):]
	case run.Evaluations > after: // read only when there are new ones: a live page asks every second or two
		if es, err = s.st.EvaluationsAfter(ctx, id, after); err != nil {
			return nil, fmt.Errorf("run %d in %s: %w", id, s.db, err)
		}
		// evaluations added since the tally count too
		run.Evaluations = max(run.Evaluations, after+len(es))
	}
	out := &Evaluations{Run: run, After: after, Evaluations: make([]Evaluation, 0, len(es)), Metrics: map[string]bool{}}
	for i := range es {
		out.Evaluations = append(out.Evaluations, evaluationJSON(after+i, &es[i], ps))
		for name := range es[i].Metrics {
			out.Metrics[name] = result.HigherIsBetter(name)
		}
	}
	return out, nil
}

func evaluationJSON(i int, e *result.Evaluation, ps []space.Param) Evaluation {
	out := Evaluation{Index: i, Config: e.Config, At: make([]int, len(e.Config)), Status: e.Status.String(),
		Objective: stats.Float(e.Objective), Message: e.Message, Device: e.Device}
	for j, v := range e.Config {
		out.At[j] = -1
		if j < len(ps) {
			out.At[j] = ps[j].Index(v)
		}
	}
	if len(e.Metrics) > 0 {
		out.Metrics = make(map[string]stats.Float, len(e.Metrics))
		for k, v := range e.Metrics {
			out.Metrics[k] = stats.Float(v)
		}
	}
	if !e.Time.IsZero() {
		t := e.Time
		out.Time = &t
	}
	return out
}

// statusNames are the evaluation statuses the status filter takes, in result's order,
// with the successes of configurations found wrong (FoundWrongStatus) after ok.
func statusNames() []string {
	var out []string
	for s := result.OK; s.Valid(); s++ {
		out = append(out, s.String())
		if s == result.OK {
			out = append(out, FoundWrongStatus)
		}
	}
	return out
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
