package main

import (
	"flag"
	"fmt"
	"strconv"
)

// countValue is an int flag that refuses values below least at parse time, so that every
// command says the same thing of a negative count (flag: invalid value "-1" for flag -n:
// ...) instead of failing later, or not at all.
type countValue struct {
	p     *int
	least int
	what  string // what the number counts, for the error
}

func (v countValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v countValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number of %s", v.what)
	}
	if n < v.least {
		return fmt.Errorf("want a number of %s, %d or more", v.what, v.least)
	}
	*v.p = n
	return nil
}

// countVar defines an int flag that takes values of least or more.
func countVar(fs *flag.FlagSet, p *int, name string, value, least int, what, usage string) {
	*p = value
	fs.Var(countValue{p, least, what}, name, usage)
}

// count defines an int flag that takes values of least or more and returns its address.
func count(fs *flag.FlagSet, name string, value, least int, what, usage string) *int {
	p := new(int)
	countVar(fs, p, name, value, least, what, usage)
	return p
}

// shareValue is a float flag that takes values in [0, 1].
type shareValue struct{ p *float64 }

func (v shareValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v shareValue) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x >= 0 && x <= 1) {
		return fmt.Errorf("want a fraction between 0 and 1")
	}
	*v.p = x
	return nil
}

// share defines a float flag that takes values in [0, 1] and returns its address.
func share(fs *flag.FlagSet, name string, value float64, usage string) *float64 {
	p := &value
	fs.Var(shareValue{p}, name, usage)
	return p
}

// minBootstrap is the fewest bootstrap resamples a 95% interval is drawn from: with fewer,
// its 2.5th and 97.5th percentiles are the extreme resamples or the estimate itself.
const minBootstrap = 20
