package figure

// MaxPoints is how many points a scatter series draws at most: each costs an SVG some
// 150 bytes, and past a few thousand more points add megabytes, not information.
const MaxPoints = 2000

// Thin returns the positions, in increasing order, of the points to draw of a series of n:
// all of them when n <= max; otherwise max positions spread evenly from the first to the
// last, together with every position keep reports (points that matter, such as each
// improvement of the best so far; keep may be nil).
func Thin(n, max int, keep func(i int) bool) []int {
	if n <= max || max < 2 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, 0, max)
	next := 0 // the next evenly spread position
	k := 0    // how many of those were taken
	for i := 0; i < n; i++ {
		even := i == next
		if even {
			k++
			next = int(int64(k) * int64(n-1) / int64(max-1))
		}
		if even || keep != nil && keep(i) {
			out = append(out, i)
		}
	}
	return out
}
