package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store/sqlite"
)

func openStore(t testing.TB) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ktune.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, path
}

var (
	i = space.IntValue
	f = space.FloatValue
	b = space.BoolValue
	s = space.StringValue
)

var base = time.Date(2024, 5, 17, 9, 30, 0, 123456789, time.UTC)
