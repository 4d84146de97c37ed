package sqlstore

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestNumberedTurnsEachQuestionMarkIntoTheNextNumber(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"WHERE id = ?", "WHERE id = $1"},
		{"VALUES (?, ?, ?)", "VALUES ($1, $2, $3)"},
		{"?", "$1"},
		{strings.Repeat("?,", 11) + "?", "$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12"},
	} {
		if got := numbered(c.in); got != c.want {
			t.Errorf("numbered(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Every shared statement, in a dialect of numbered parameters, has as many as it has in
// one of ?, numbered 1, 2... in the order of its arguments.
func TestEveryStatementIsNumberedInOrder(t *testing.T) {
	b := Backend{RunEvaluations: "r.next_seq", ParamsJSON: "s.params::json", Columns: "config, status"}
	plain := New(b)
	b.Numbered = true
	num := New(b)
	statements := func(q *Queries) []string {
		return []string{q.putDevice, q.putSpace, q.createRun, q.finishRun, q.setRunSettings, q.device, q.space,
			q.run, q.width, q.evaluationsFrom, q.lookup, q.runExists, q.importCandidates}
	}
	number := regexp.MustCompile(`\$[0-9]+`)
	ps, ns := statements(plain), statements(num)
	for k := range ps {
		want := strings.Count(ps[k], "?")
		if want == 0 {
			t.Errorf("statement %d has no parameters:\n%s", k, ps[k])
		}
		got := number.FindAllString(ns[k], -1)
		if strings.Contains(ns[k], "?") || len(got) != want {
			t.Errorf("statement %d has %d numbered parameters, want %d and no ?:\n%s", k, len(got), want, ns[k])
			continue
		}
		for i, p := range got {
			if p != fmt.Sprintf("$%d", i+1) {
				t.Errorf("statement %d: parameter %d is %s:\n%s", k, i+1, p, ns[k])
			}
		}
	}
	if q := num.param(3); q != "$3" {
		t.Errorf("param(3) = %q, want $3", q)
	}
	if q := plain.param(3); q != "?" {
		t.Errorf("param(3) = %q, want ?", q)
	}
}
