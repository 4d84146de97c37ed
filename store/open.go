package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// OpenFunc opens a store at a location such as "sqlite:results.db" or
// "postgres://host/db"; it receives the location exactly as the user wrote it.
type OpenFunc func(ctx context.Context, location string) (Store, error)

// DefaultScheme is the backend that a location without a scheme (a bare path) selects.
const DefaultScheme = "sqlite"

// ErrNoBackend reports a location whose scheme no imported backend serves.
var ErrNoBackend = errors.New("no backend registered")

var (
	backendsMu sync.RWMutex
	backends   = map[string]OpenFunc{}
)

// Register makes a backend available to Open under a URL scheme. Backends call it from
// init, so that importing a backend package is all a program needs to do to use it.
// Registering a scheme twice panics, as database/sql.Register does.
func Register(scheme string, open OpenFunc) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if open == nil {
		panic("store: Register open function is nil")
	}
	if _, dup := backends[scheme]; dup {
		panic("store: Register called twice for scheme " + scheme)
	}
	backends[scheme] = open
}

// Open opens the store at location: "scheme:rest" picks the backend registered for scheme;
// anything else (a bare path) is a DefaultScheme path. The backend's package must be
// imported, e.g. import _ "github.com/ktune/ktune/store/sqlite".
func Open(ctx context.Context, location string) (Store, error) {
	scheme := Scheme(location)
	backendsMu.RLock()
	open, ok := backends[scheme]
	backendsMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("store: open %q: %w for scheme %q (registered: %s; import its package)",
			location, ErrNoBackend, scheme, strings.Join(schemes(), ", "))
	}
	s, err := open(ctx, location)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Scheme returns the backend scheme that location selects. A scheme needs at least two
// characters so that a Windows drive letter ("C:\results.db") reads as a path.
func Scheme(location string) string {
	i := strings.IndexByte(location, ':')
	if i < 2 {
		return DefaultScheme
	}
	for j, c := range location[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return DefaultScheme
		}
	}
	return strings.ToLower(location[:i])
}

func schemes() []string {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	names := make([]string, 0, len(backends))
	for name := range backends {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return []string{"none"}
	}
	return names
}
