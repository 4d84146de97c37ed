package figure

import "testing"

func TestThinKeepsEndsEvenSpacingAndWhatMatters(t *testing.T) {
	if got := Thin(5, 10, nil); len(got) != 5 {
		t.Fatalf("a short series: %v, want all 5", got)
	}
	const n = 300000
	improvements := map[int]bool{7: true, 12345: true, 299998: true}
	got := Thin(n, MaxPoints, func(i int) bool { return improvements[i] })
	if len(got) < MaxPoints || len(got) > MaxPoints+len(improvements) {
		t.Fatalf("%d points, want %d to %d", len(got), MaxPoints, MaxPoints+len(improvements))
	}
	if got[0] != 0 || got[len(got)-1] != n-1 {
		t.Errorf("first %d last %d: want the series' ends", got[0], got[len(got)-1])
	}
	seen := map[int]bool{}
	for k, i := range got {
		if k > 0 && i <= got[k-1] {
			t.Fatalf("positions not increasing at %d: %d after %d", k, i, got[k-1])
		}
		if k > 0 && i-got[k-1] > n/(MaxPoints-1)+1 {
			t.Errorf("a gap of %d before %d: not evenly spread", i-got[k-1], i)
		}
		seen[i] = true
	}
	for i := range improvements {
		if !seen[i] {
			t.Errorf("position %d that matters was dropped", i)
		}
	}
}
