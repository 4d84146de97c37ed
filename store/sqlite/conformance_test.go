package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) string { return filepath.Join(t.TempDir(), "ktune.db") })
}
