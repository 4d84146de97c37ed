package main

import "github.com/ktune/ktune/tuner"

// The names this command's tests knew before tuning moved to package tuner.

// runLock is a run this test process holds, as another ktune process would.
type runLock struct{ l *tuner.RunLock }

// lockRun takes run of the database at db for this test process.
func lockRun(db string, run int64) (*runLock, error) {
	l, err := tuner.LockRun(db, run)
	if err != nil {
		return nil, err
	}
	return &runLock{l}, nil
}

func (l *runLock) release() { l.l.Release() }

// tuneReport is what ktune tune --json prints.
type tuneReport = tuner.Report

// stopBudgetSpent is why a run whose budget was spent before the command measured nothing.
const stopBudgetSpent = tuner.StopBudgetSpent
