package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/store/storetest"
)

func newLocation(t testing.TB) string { return filepath.Join(t.TempDir(), "ktune.db") }

func TestConformance(t *testing.T) { storetest.Run(t, newLocation) }

// BenchmarkStore runs the benchmarks that store/postgres runs too, to compare the two.
func BenchmarkStore(b *testing.B) { storetest.Bench(b, newLocation) }
