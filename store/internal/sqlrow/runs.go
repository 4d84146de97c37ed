package sqlrow

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/codec"
)

// ScanRuns reads and closes rows of runs whose columns are, in order: id, space_id,
// device_id, kind, strategy, strategy_options, seed, objective, direction, problem_size,
// started, finished, status, source, format, settings, warnings, the space's kernel, the
// device's name and backend, and the run's number of evaluations.
func ScanRuns(rows *sql.Rows) ([]store.RunInfo, error) {
	defer rows.Close()
	var runs []store.RunInfo
	for rows.Next() {
		var (
			r                           store.RunInfo
			kind, dir, status           string
			seed, started, evaluations  int64
			finished                    sql.NullInt64
			options, settings, warnings sql.NullString
		)
		err := rows.Scan(&r.ID, &r.SpaceID, &r.DeviceID, &kind, &r.Strategy, &options, &seed,
			&r.Objective, &dir, &r.ProblemSize, &started, &finished, &status, &r.Source,
			&r.Format, &settings, &warnings, &r.Kernel, &r.Device, &r.Backend, &evaluations)
		if err != nil {
			return nil, err
		}
		r.Kind, r.Status, r.Seed, r.Maximize = store.RunKind(kind), store.RunStatus(status), uint64(seed), dir == "max"
		r.Started, r.Finished = FromUnixNano(sql.NullInt64{Int64: started, Valid: true}), FromUnixNano(finished)
		r.Evaluations = int(evaluations)
		if options.Valid {
			r.StrategyOptions = json.RawMessage(options.String)
		}
		if settings.Valid {
			r.Settings = json.RawMessage(settings.String)
		}
		if r.Warnings, err = codec.ParseStrings([]byte(warnings.String)); err != nil {
			return nil, fmt.Errorf("run %d: %w", r.ID, err)
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

// SpaceArgs checks sp and encodes it as the values of a space's columns, in order: hash,
// kernel, params, restrictions; text as the store keeps it (Storable, ValidParams), the
// hash of what it keeps.
func SpaceArgs(sp store.Space) ([]any, error) {
	if len(sp.Params) == 0 {
		return nil, errors.New("no parameters: a space has at least one")
	}
	seen := make(map[string]bool, len(sp.Params))
	for i, p := range sp.Params {
		if p.Name == "" {
			return nil, fmt.Errorf("parameter %d has no name", i)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("parameter %q appears twice", p.Name)
		}
		seen[p.Name] = true
	}
	sp.Kernel = Storable("kernel name", sp.Kernel)
	var changed []string
	var err error
	if sp.Params, changed, err = ValidParams(sp.Params); err != nil {
		return nil, err
	}
	if len(changed) > 0 {
		slog.Warn("store: parameters' names or string values hold bytes that are not UTF-8, which the store keeps as U+FFFD",
			"kernel", sp.Kernel, "params", strings.Join(changed, ", "))
	}
	hash, err := sp.Hash()
	if err != nil {
		return nil, err
	}
	params, err := codec.Params(sp.Params)
	if err != nil {
		return nil, err
	}
	restrictions, err := codec.Strings(sp.Restrictions)
	if err != nil {
		return nil, err
	}
	return []any{hash, sp.Kernel, string(params), NullText(restrictions)}, nil
}

// RunArgs checks run, fills in its defaults (status running, objective "time", started
// now), and encodes it as the values of a run's columns, in order: space_id, device_id,
// kind, strategy, strategy_options, seed, objective, direction, problem_size, started,
// finished, status, source, format, settings, warnings.
func RunArgs(run store.RunInfo) ([]any, error) {
	if !run.Kind.Valid() {
		return nil, fmt.Errorf("unknown run kind %q", run.Kind)
	}
	if run.Status == "" {
		run.Status = store.StatusRunning
	}
	if !run.Status.Valid() {
		return nil, fmt.Errorf("unknown run status %q", run.Status)
	}
	if run.Objective == "" {
		run.Objective = "time"
	}
	if run.Started.IsZero() {
		run.Started = time.Now()
	}
	options, err := JSONObject("strategy options", run.StrategyOptions)
	if err != nil {
		return nil, err
	}
	settings, err := JSONObject("settings", run.Settings)
	if err != nil {
		return nil, err
	}
	warnings, err := codec.Strings(run.Warnings)
	if err != nil {
		return nil, err
	}
	return []any{
		run.SpaceID, run.DeviceID, string(run.Kind), Storable("strategy", run.Strategy), options, int64(run.Seed),
		Storable("objective", run.Objective), Direction(run.Maximize), Storable("problem size", run.ProblemSize), UnixNano(run.Started),
		UnixNano(run.Finished), string(run.Status), Storable("source", run.Source), Storable("format", run.Format), settings,
		NullText(warnings),
	}, nil
}

// RunFilterWhere is the WHERE clause (with its leading " WHERE ", or "" when f selects
// every run) and arguments that select the runs f describes, over a query joining runs r,
// spaces s and devices d; placeholder gives the dialect's n-th parameter ("?" or "$n").
func RunFilterWhere(f store.RunFilter, placeholder func(n int) string) (string, []any) {
	var where []string
	var args []any
	add := func(column string, arg any) {
		args = append(args, arg)
		where = append(where, column+" = "+placeholder(len(args)))
	}
	if f.SpaceID != 0 {
		add("r.space_id", f.SpaceID)
	}
	if f.DeviceID != 0 {
		add("r.device_id", f.DeviceID)
	}
	if f.Kernel != "" {
		add("s.kernel", StorableText(f.Kernel))
	}
	if f.Device != "" {
		add("d.name", StorableText(f.Device))
	}
	if f.Kind != "" {
		add("r.kind", string(f.Kind))
	}
	if f.Status != "" {
		add("r.status", string(f.Status))
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}
