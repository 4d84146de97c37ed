package sqlrow

import (
	"database/sql"
	"fmt"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/internal/codec"
)

// EvaluationColumns names an evaluation's columns in the order of EvaluationArgs and
// ScanEvaluation.
const EvaluationColumns = `config, config_key, status, objective, samples, metrics,
	compile_ms, verify_ms, benchmark_ms, framework_ms, message, time, strategy_ms,
	` + LaunchColumns + `, warnings, runs_per_sample, device`

// LaunchColumns, among EvaluationColumns, hold an evaluation's launch, all NULL when
// unknown.
const LaunchColumns = `grid_x, grid_y, grid_z, block_x, block_y, block_z`

// EvaluationArgs encodes e, in a run whose space has width parameters, as the values of
// an evaluation's columns, in order: config, config_key, status, objective, samples,
// metrics, compile_ms, verify_ms, benchmark_ms, framework_ms, message, time, strategy_ms,
// grid_x, grid_y, grid_z, block_x, block_y, block_z, warnings, runs_per_sample, device.
// text, when not nil, turns the message, the warnings and the device into what the store
// keeps: StorableText, in every backend, so that a run reads back the same from each.
// The configuration's string values are kept as ValidText, its key as StorableText.
func EvaluationArgs(e *result.Evaluation, width int, text func(string) string) ([]any, error) {
	if len(e.Config) != width {
		return nil, fmt.Errorf("configuration has %d values, the run's space has %d parameters",
			len(e.Config), width)
	}
	if _, err := result.ParseStatus(e.Status.String()); err != nil {
		return nil, err
	}
	values, _ := ValidValues(e.Config)
	config, err := codec.Values(values)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	metrics, err := codec.Metrics(e.Metrics)
	if err != nil {
		return nil, err
	}
	if l := e.Launch; l != nil && !l.Valid() {
		return nil, fmt.Errorf("launch: grid %v, block %v: a size below 1", l.Grid, l.Block)
	}
	var samples any // a nil []byte in an interface is not NULL to every driver
	if b := codec.Samples(e.Samples); b != nil {
		samples = b
	}
	message, warnings, device := e.Message, e.Warnings, e.Device
	if text != nil {
		message, warnings, device = text(message), text(warnings), text(device)
	}
	args := []any{
		string(config), StorableText(store.ConfigKey(values)), e.Status.String(), RealOrNull(e.Objective),
		samples, NullText(metrics), RealOrNull(e.CompileMS), RealOrNull(e.VerifyMS),
		RealOrNull(e.BenchmarkMS), RealOrNull(e.FrameworkMS), message, UnixNano(e.Time),
		RealOrNull(e.StrategyMS), nil, nil, nil, nil, nil, nil, EmptyAsNull(warnings),
		PositiveOrNull(e.RunsPerSample), EmptyAsNull(device),
	}
	if l := e.Launch; l != nil {
		launch := args[13:19]
		for d := range 3 {
			launch[d], launch[3+d] = int64(l.Grid[d]), int64(l.Block[d])
		}
	}
	return args, nil
}

// ScanEvaluation reads the evaluation in rows' current row, of the columns that
// EvaluationArgs encodes, in its order.
func ScanEvaluation(rows *sql.Rows) (result.Evaluation, error) {
	var (
		e                                     result.Evaluation
		config, key, status                   string
		objective, compile, verify, bench, fw sql.NullFloat64
		strategy                              sql.NullFloat64
		samples                               []byte
		metrics                               sql.NullString
		t                                     sql.NullInt64
		grid, block                           [3]sql.NullInt64
		warnings                              sql.NullString
		perSample                             sql.NullInt64
		device                                sql.NullString
	)
	err := rows.Scan(&config, &key, &status, &objective, &samples, &metrics,
		&compile, &verify, &bench, &fw, &e.Message, &t, &strategy,
		&grid[0], &grid[1], &grid[2], &block[0], &block[1], &block[2], &warnings, &perSample, &device)
	if err != nil {
		return e, err
	}
	// written all six or none (EvaluationArgs); a row with some is read as no launch
	if grid[0].Valid {
		var l result.Launch
		for d := range 3 {
			l.Grid[d], l.Block[d] = int(grid[d].Int64), int(block[d].Int64)
			if !grid[d].Valid || !block[d].Valid {
				l = result.Launch{}
				break
			}
		}
		if l.Valid() {
			e.Launch = &l
		}
	}
	if e.Config, err = codec.ParseValues([]byte(config)); err != nil {
		return e, err
	}
	if e.Status, err = result.ParseStatus(status); err != nil {
		return e, err
	}
	if e.Samples, err = codec.ParseSamples(samples); err != nil {
		return e, err
	}
	if e.Metrics, err = codec.ParseMetrics([]byte(metrics.String)); err != nil {
		return e, err
	}
	e.Objective, e.CompileMS, e.VerifyMS = NullAsNaN(objective), NullAsNaN(compile), NullAsNaN(verify)
	e.BenchmarkMS, e.FrameworkMS, e.StrategyMS = NullAsNaN(bench), NullAsNaN(fw), NullAsNaN(strategy)
	e.Time = FromUnixNano(t)
	e.Warnings, e.Device = warnings.String, device.String
	if perSample.Int64 > 0 {
		e.RunsPerSample = int(perSample.Int64)
	}
	return e, nil
}

// ScanEvaluations reads and closes rows of evaluations (the columns of ScanEvaluation),
// which errors number from first on.
func ScanEvaluations(rows *sql.Rows, first int) ([]result.Evaluation, error) {
	defer rows.Close()
	var es []result.Evaluation
	for rows.Next() {
		e, err := ScanEvaluation(rows)
		if err != nil {
			return nil, fmt.Errorf("evaluation %d: %w", first+len(es), err)
		}
		es = append(es, e)
	}
	return es, rows.Err()
}

// FindConfig reads rows of evaluations (the columns of ScanEvaluation), closing them, and
// returns the first whose configuration is config: rows selected by store.ConfigKey,
// which is ambiguous when string values contain commas, where the values are not.
func FindConfig(rows *sql.Rows, config []space.Value) (result.Evaluation, bool, error) {
	defer rows.Close()
	for rows.Next() {
		e, err := ScanEvaluation(rows)
		if err != nil {
			return result.Evaluation{}, false, err
		}
		if sameConfig(e.Config, config) {
			return e, true, nil
		}
	}
	return result.Evaluation{}, false, rows.Err()
}

// sameConfig reports whether two configurations hold the same values of the same kinds.
func sameConfig(a, b []space.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind() != b[i].Kind() || !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}
