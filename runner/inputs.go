package runner

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/spec"
)

// changedInputs reads back, after the verified run, each array the kernel must leave as
// it got it (spec.UnchangedInputs: neither output nor scratch) from bufs, and compares it
// byte for byte with the data it was given: given[i] where the caller gave argument i's
// (RunCheckedWith), else the spec's. It returns a message for each input the kernel
// changed, and what to do, or "". A kernel that writes its input passes every comparison
// of its outputs here, where each evaluation starts from fresh data, yet in an
// application it spoils the caller's data, or its next call's.
func (r *Runner) changedInputs(inst *spec.Instance, bufs []device.Buffer, given map[int][]byte) (string, error) {
	var changed []string
	for _, i := range r.spec.UnchangedInputs() {
		a := inst.Args[i]
		if a.Bytes == 0 || bufs[i] == nil {
			continue
		}
		was, ok := given[i]
		if !ok {
			var err error
			if was, err = r.input(i, a.Length); err != nil {
				return "", err
			}
		}
		// One host copy, of the largest input, serves every input of every evaluation.
		if cap(r.readBack) < a.Bytes {
			r.readBack = make([]byte, a.Bytes)
		}
		got := r.readBack[:a.Bytes]
		if err := bufs[i].Read(got); err != nil {
			return "", fmt.Errorf("reading input %s back to check that the kernel left it unchanged: %w", a.Name, err)
		}
		if msg := inputChanged(a, got, was); msg != "" {
			changed = append(changed, msg)
		}
	}
	if changed == nil {
		return "", nil
	}
	return strings.Join(changed, "; ") + ". " + changedAdvice, nil
}

// inputChanged describes how got, input a after the run, differs from was, the data it
// was given, element by element of its type; "" when they are the same bytes. A NaN
// written over a NaN of other bits is a change: the kernel wrote there.
func inputChanged(a spec.ArgInstance, got, was []byte) string {
	if bytes.Equal(got, was) {
		return ""
	}
	size := elemSize(a.Type)
	n, first := 0, -1
	for k := range len(got) / size {
		if !bytes.Equal(got[k*size:(k+1)*size], was[k*size:(k+1)*size]) {
			if first < 0 {
				first = k
			}
			n++
		}
	}
	if first < 0 { // the bytes past the last whole element, which no kernel can name
		return ""
	}
	old := elemShown(a.Type, was[first*size:(first+1)*size])
	now := elemShown(a.Type, got[first*size:(first+1)*size])
	return fmt.Sprintf("input %s was changed by the kernel: %d of its %d elements differ from the data it was given; first at index %d: was %v, now %v",
		a.Name, n, len(got)/size, first, old, now)
}

// changedAdvice follows the inputs a kernel changed, in a message, once.
const changedAdvice = "Declare such an input output: true if the kernel is meant to write it (verification then compares it too), " +
	"or scratch: true if it holds intermediate results the kernel may overwrite; otherwise the kernel writes where it should only read, " +
	"which in an application spoils its caller's data"

// elemShown is elemValue for a message on changed bits: a NaN with its bits, which tell
// one NaN from another (elemValue reads unsigned integers of any width).
func elemShown(typ string, b []byte) any {
	v := elemValue(typ, b)
	if f, ok := v.(float64); ok && math.IsNaN(f) {
		return fmt.Sprintf("NaN (bits %#x)", elemValue("uint64", b))
	}
	return v
}
