package tuning_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	_ "github.com/ktune/ktune/store/sqlite" // the SQLite results store
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// runSink records a session's evaluations in a run of the results store.
type runSink struct {
	st  store.Store
	run int64
}

func (s runSink) Record(ctx context.Context, e result.Evaluation) error {
	return s.st.AddEvaluation(ctx, s.run, e)
}

// An application that tunes its kernel step by step keeps every measurement in the results
// store the moment it is told, as ktune tune does: the store becomes the session's Sink
// through a run created for it, and 'ktune runs', 'analyze' and 'report' read it like any
// other. Here the kernel's time is a formula, as in the Ask example.
func ExampleSink() {
	dir, err := os.MkdirTemp("", "ktune-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "ktune.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	params := []space.Param{
		{Name: "block_size_x", Values: []space.Value{space.IntValue(64), space.IntValue(128), space.IntValue(256), space.IntValue(512)}},
		{Name: "tile_size_x", Values: []space.Value{space.IntValue(1), space.IntValue(2), space.IntValue(4)}},
	}
	restrictions := []string{"block_size_x * tile_size_x <= 1024"}
	sp, err := expr.NewSpace(params, restrictions)
	if err != nil {
		fmt.Println(err)
		return
	}
	// the run: which space, on which device, searched how
	spaceID, err := st.PutSpace(ctx, store.Space{Kernel: "my_kernel", Params: params, Restrictions: restrictions})
	if err != nil {
		fmt.Println(err)
		return
	}
	deviceID, err := st.PutDevice(ctx, store.Device{Name: "my GPU", Backend: "opencl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	const seed = 1
	run, err := st.CreateRun(ctx, store.RunInfo{SpaceID: spaceID, DeviceID: deviceID, Kind: store.KindTuning,
		Strategy: "random", Seed: seed, Objective: "time"})
	if err != nil {
		fmt.Println(err)
		return
	}

	st2, err := strategy.New("random", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := tuning.New(sp, st2, nil, tuning.Options{Budget: 6, Seed: seed, Sink: runSink{st, run}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	for {
		c, err := s.Ask(ctx)
		if errors.Is(err, tuning.ErrDone) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		v := sp.Values(c)
		ms := 1 + (v[0].Float()-256)*(v[0].Float()-256)/1e4 + v[1].Float()/10 // the kernel's time
		if err := s.Tell(c, result.Evaluation{Status: result.OK, Objective: ms}); err != nil {
			fmt.Println(err) // the store failed to record it: the session is over
			return
		}
	}
	if err := st.FinishRun(ctx, run, store.StatusFinished); err != nil {
		fmt.Println(err)
		return
	}

	tally, err := st.Tally(ctx, run)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum := s.Summary()
	fmt.Printf("run %d: %d evaluations stored, %d succeeded\n", run, tally.Evaluations, tally.Succeeded)
	fmt.Printf("best stored: %s at %.2f ms (the session's: %.2f ms)\n", store.ConfigKey(tally.Best.Config), tally.Best.Objective, sum.BestObjective)
	// Output:
	// run 1: 6 evaluations stored, 6 succeeded
	// best stored: 256,2 at 1.20 ms (the session's: 1.20 ms)
}
