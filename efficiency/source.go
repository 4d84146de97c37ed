package efficiency

import (
	"fmt"
	"strconv"
)

// Where a peak came from (Source.From).
const (
	FromFlag    = "flag"    // a command-line flag: --peak-gbs, --peak-gflops
	FromFile    = "file"    // a peaks file's entry for the device (--peaks)
	FromDerived = "derived" // the device's backend derived it from the device's attributes
	FromGiven   = "given"   // a caller that did not say how it knows it
)

// Source says where a peak came from: a flag, a peaks file (its path and the device's
// entry), the device's backend (how it derived it), and whether it was read from a run's
// stored peaks (Run) rather than given to the command that reads it.
type Source struct {
	From   string `json:"from"`             // FromFlag, FromFile, FromDerived or FromGiven
	Flag   string `json:"flag,omitempty"`   // FromFlag: "--peak-gbs", "--peak-gflops"
	File   string `json:"file,omitempty"`   // FromFile: the peaks file's path
	Device string `json:"device,omitempty"` // FromFile: the file's entry (a name or backend:index)
	How    string `json:"how,omitempty"`    // FromDerived: the attributes and the formula
	// Run is the run whose stored peaks (Stored) this one was read from, where the command
	// was given none; 0 for a peak the command was given, or derived itself. Runs store
	// their peaks without it.
	Run int64 `json:"run,omitempty"`
}

// String says where the peak came from in words: "given: --peak-gbs", "given: peaks
// file F, device "X"", "derived: HOW", "given", each after "stored with run N: " where
// it was read from the run's stored peaks.
func (s Source) String() string {
	var text string
	switch s.From {
	case FromFlag:
		text = "given: " + s.Flag
	case FromFile:
		text = fmt.Sprintf("given: peaks file %s, device %s", s.File, strconv.Quote(s.Device))
	case FromDerived:
		text = "derived"
		if s.How != "" {
			text += ": " + s.How
		}
	default:
		text = FromGiven
	}
	if s.Run > 0 {
		return fmt.Sprintf("stored with run %d: %s", s.Run, text)
	}
	return text
}

func (s Source) orGiven() Source {
	if s.From == "" {
		s.From = FromGiven
	}
	return s
}
