package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store/internal/codec"
)

// Hash identifies the space by its content (kernel, parameters with their typed values in
// order, restrictions in order) so that every database, whatever its backend, stores the
// same space under the same hash and runs over it can be compared and merged.
func (s Space) Hash() (string, error) {
	params, err := codec.Params(s.Params)
	if err != nil {
		return "", fmt.Errorf("hash space %q: %w", s.Kernel, err)
	}
	restrictions := s.Restrictions
	if restrictions == nil {
		restrictions = []string{} // nil and empty restrictions are the same space
	}
	b, err := json.Marshal(struct {
		Kernel       string          `json:"kernel"`
		Params       json.RawMessage `json:"params"`
		Restrictions []string        `json:"restrictions"`
	}{s.Kernel, params, restrictions})
	if err != nil {
		return "", fmt.Errorf("hash space %q: %w", s.Kernel, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// ConfigKey is the text by which stores index a configuration: its values' String() joined
// by ",", which is also how Kernel Tuner keys its cache, so keys carry over between the two.
// It is result.ConfigKey, by which a recording matches the configurations it found wrong.
func ConfigKey(config []space.Value) string { return result.ConfigKey(config) }
