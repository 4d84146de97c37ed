package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ktune/ktune/tuner"
)

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

// 'ktune help tune' names every field of the --json summary.
func TestTuneHelpNamesEveryJSONField(t *testing.T) {
	out, _, code := ktune(t, "help", "tune")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := strings.Join(strings.Fields(out), " ")
	rt := reflect.TypeFor[tuner.Report]()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if !strings.Contains(help, name) {
			t.Errorf("the help does not name the JSON field %s", name)
		}
	}
}
