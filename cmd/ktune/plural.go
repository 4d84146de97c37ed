package main

import "strconv"

// plural writes a count with its noun in the right number: "1 configuration",
// "0 configurations", "2 maxima".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
