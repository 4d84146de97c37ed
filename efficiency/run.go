package efficiency

import (
	"context"
	"encoding/json"
	"math"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// OfRun reads what a stored run's efficiency is computed from: the essential operations
// its settings keep ('ktune tune' stores the spec's essential_ops there; nil for a run of
// a spec without them, or an import) and the peaks its device's backend derived (nil
// where the store keeps none).
func OfRun(ctx context.Context, st store.Store, info store.RunInfo) (*Ops, *device.Peak) {
	var settings struct {
		Ops *Ops `json:"essential_ops"`
	}
	if len(info.Settings) == 0 || json.Unmarshal(info.Settings, &settings) != nil || settings.Ops == nil {
		return nil, nil
	}
	d, err := st.Device(ctx, info.DeviceID)
	if err != nil || len(d.Properties) == 0 {
		return settings.Ops, nil
	}
	var di device.Info
	if json.Unmarshal(d.Properties, &di) != nil {
		return settings.Ops, nil
	}
	return settings.Ops, di.Peak
}

// Percents is each evaluation's efficiency in percent (eq. 2) by the kernel time it
// keeps (result.Evaluation.TimeMS), NaN where it failed or has no time.
func Percents(rec *result.Recording, ops Ops, p Peaks) []float64 {
	out := make([]float64, len(rec.Evaluations))
	for i := range rec.Evaluations {
		out[i] = math.NaN()
		ms, ok := rec.Evaluations[i].TimeMS(rec.Objective)
		if !ok {
			continue
		}
		if r, err := Of(ops, ms, p); err == nil {
			out[i] = r.Percent
		}
	}
	return out
}
