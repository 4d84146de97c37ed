package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

func TestScheme(t *testing.T) {
	tests := []struct{ location, want string }{
		{"results.db", "sqlite"},
		{"/var/lib/ktune/results.db", "sqlite"},
		{"sqlite:results.db", "sqlite"},
		{"sqlite:///abs/results.db", "sqlite"},
		{"postgres://host/ktune", "postgres"},
		{"PostgreSQL+ssl://host", "postgresql+ssl"},
		{`C:\ktune\results.db`, "sqlite"},
		{"./a:b.db", "sqlite"},
		{"runs/2024-05-17T09:30.db", "sqlite"},
	}
	for _, tt := range tests {
		if got := store.Scheme(tt.location); got != tt.want {
			t.Errorf("Scheme(%q) = %q, want %q", tt.location, got, tt.want)
		}
	}
}

func TestOpenUnregisteredScheme(t *testing.T) {
	_, err := store.Open(context.Background(), "mysql://host/db")
	if err == nil || !strings.Contains(err.Error(), `no backend registered for scheme "mysql"`) {
		t.Errorf("Open(mysql://...) = %v", err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	open := func(context.Context, string) (store.Store, error) { return nil, nil }
	store.Register("test-twice", open)
	defer func() {
		if recover() == nil {
			t.Error("registering a scheme twice did not panic")
		}
	}()
	store.Register("test-twice", open)
}

func TestSpaceHash(t *testing.T) {
	ints := []space.Param{{Name: "x", Values: []space.Value{space.IntValue(1), space.IntValue(2)}}}
	floats := []space.Param{{Name: "x", Values: []space.Value{space.FloatValue(1), space.FloatValue(2)}}}
	reversed := []space.Param{{Name: "x", Values: []space.Value{space.IntValue(2), space.IntValue(1)}}}
	hash := func(s store.Space) string {
		h, err := s.Hash()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	base := hash(store.Space{Kernel: "k", Params: ints})
	if h := hash(store.Space{Kernel: "k", Params: ints, Restrictions: []string{}}); h != base {
		t.Error("nil and empty restrictions hash differently")
	}
	for name, s := range map[string]store.Space{
		"float values":     {Kernel: "k", Params: floats},
		"value order":      {Kernel: "k", Params: reversed},
		"kernel name":      {Kernel: "k2", Params: ints},
		"with restriction": {Kernel: "k", Params: ints, Restrictions: []string{"x > 1"}},
	} {
		if hash(s) == base {
			t.Errorf("a space differing in %s hashes the same", name)
		}
	}
	// The hash is in every database: changing how it is computed splits stored spaces in
	// two. This is sha256 of {"kernel":"k","params":[{"name":"x","values":[1,2]}],"restrictions":[]}.
	if want := "c76ba124578bb72d3cd5a79a1989ccd08c61c677c72e6143ea0c97d917ca1770"; base != want {
		t.Errorf("hash = %s, want %s", base, want)
	}
}

func TestConfigKeyMatchesKernelTuner(t *testing.T) {
	config := []space.Value{space.IntValue(32), space.FloatValue(2), space.FloatValue(1e-5), space.BoolValue(true), space.StringValue("row")}
	if got, want := store.ConfigKey(config), "32,2.0,1e-05,True,row"; got != want {
		t.Errorf("ConfigKey = %q, want %q", got, want)
	}
}
