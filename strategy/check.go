package strategy

import (
	"fmt"

	"github.com/ktune/ktune/space"
)

// SpaceChecker is a strategy with options that can be checked only against the space it
// searches and the run's budget: a parameter an option names (greedymls's order,
// saltelli's params), the size of a design. New cannot check them, having no space.
type SpaceChecker interface {
	// CheckSpace returns the error a run on sp with this budget (0: none) would stop
	// with at its start because of the strategy's options, naming the option.
	CheckSpace(sp *space.Space, budget int) error
}

// Check returns the error a run of st on sp with this budget (0: none) would stop with at
// its start because of st's options, before anything is evaluated: so a command can
// refuse the options as it refuses an unknown one, before it creates a run or compiles
// anything. tuning.New calls it; a command that prepares more than a session (a stored
// run, the runs of a benchmark) calls it first, through Validate.
func Check(st Strategy, sp *space.Space, budget int) error {
	c, ok := st.(SpaceChecker)
	if !ok {
		return nil
	}
	if err := c.CheckSpace(sp, budget); err != nil {
		return fmt.Errorf("strategy %s: %w", st.Name(), err)
	}
	return nil
}

// Validate builds strategy name with opts and checks them against sp and budget: New and
// Check in one, for commands that check the options before they run anything.
func Validate(name string, opts map[string]any, sp *space.Space, budget int) error {
	st, err := New(name, opts)
	if err != nil {
		return err
	}
	return Check(st, sp, budget)
}

// EndsOnItsOwn reports whether runs of strategy name with opts end without a budget or a
// time limit: bruteforce, which evaluates the space once, and saltelli given its design's
// size n. Others may propose configurations evaluated before forever.
func EndsOnItsOwn(name string, opts map[string]any) bool {
	switch name {
	case "bruteforce":
		return true
	case "saltelli":
		ro, err := SaltelliOptions(opts)
		return err == nil && ro.N > 0
	}
	return false
}
