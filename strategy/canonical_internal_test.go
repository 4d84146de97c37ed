package strategy

import "testing"

// Every option of a built-in strategy says how it is read, so that Canonical writes it one
// way: an option without a Kind would keep its spellings apart, and a run tuned with
// neighbourhood=hamming would not be resumed by neighbourhood=Hamming.
func TestEveryBuiltinOptionHasAKind(t *testing.T) {
	for _, b := range builtin {
		for _, o := range b.f.Options {
			if o.Kind.canonical == nil {
				t.Errorf("%s: option %s has no Kind", b.name, o.Name)
			}
		}
	}
}
