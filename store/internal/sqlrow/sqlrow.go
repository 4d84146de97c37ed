// Package sqlrow encodes the values of runs and evaluations as the column values of a SQL
// row, and decodes rows back, in the way every store backend shares: what it holds does
// not depend on a backend's SQL dialect, only on database/sql. The statements that every
// backend runs alike are in package sqlstore; each backend keeps its own schema, the SQL
// text that differs, and its connection handling.
package sqlrow

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Direction returns the direction column's value: "max" or "min".
func Direction(maximize bool) string {
	if maximize {
		return "max"
	}
	return "min"
}

// JSONObject checks that raw is a JSON object and returns it for a text column (Storable:
// JSON holds NUL bytes escaped only), or nil (NULL) when raw is empty.
func JSONObject(what string, raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s must be a JSON object: %s", what, raw)
	}
	return Storable(what, string(raw)), nil
}

// NullText returns b as a text value, or nil (NULL) when b is nil.
func NullText(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// UnixNano returns t as an integer column value, or nil (NULL) when t is zero, so that
// "unknown" is not confused with 1970 or with Go's year 1.
func UnixNano(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// FromUnixNano decodes what UnixNano encoded, in UTC; NULL gives the zero time.
func FromUnixNano(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}

// EmptyAsNull returns s for a text column that is NULL when there is nothing.
func EmptyAsNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// PositiveOrNull returns n for an integer column that is NULL when unknown (0 or less).
func PositiveOrNull(n int) any {
	if n <= 0 {
		return nil
	}
	return int64(n)
}

// RealOrNull returns f for a floating-point column, or nil (NULL) for NaN, which SQLite
// cannot store; -0 as 0, since SQLite keeps a REAL that is a whole number as an integer,
// which has no sign, where PostgreSQL would keep it: a run reads back the same from
// either.
func RealOrNull(f float64) any {
	switch {
	case math.IsNaN(f):
		return nil
	case f == 0:
		return 0.0
	}
	return f
}

// NullAsNaN reads a floating-point column, NULL standing for NaN.
func NullAsNaN(f sql.NullFloat64) float64 {
	if !f.Valid {
		return math.NaN()
	}
	return f.Float64
}
