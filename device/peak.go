package device

import "strings"

// Peak is a device's theoretical throughput: the bounds against which seed 003's
// efficiency (eq. 2) measures a kernel. A backend fills in what it can derive from the
// device's attributes and says how; what it cannot derive is left out, never guessed.
// Backends build it with Derive and Lack, which keep every field below in step.
type Peak struct {
	// GFLOPS is the arithmetic peak in GFLOP/s (a fused multiply-add counted as two
	// operations) by precision: "float32", "float64", "float16". A precision the backend
	// cannot derive is absent.
	GFLOPS map[string]float64 `json:"gflops,omitempty"`
	// GBs is the memory bandwidth peak in GB/s (10^9 bytes per second); 0 when unknown.
	GBs float64 `json:"gbs,omitempty"`
	// How says how the derived figures were derived in one text, each figure's name and
	// its PeakFigure.How, separated by "; " ("float32 ...; memory ..."). It is kept for
	// the readers of 'ktune devices --json' and for devices stored by a ktune before
	// Figures, which have only it; Figures says it figure by figure.
	How string `json:"how,omitempty"`
	// Unknown says which figures the backend cannot derive, and why, in one text: each
	// "FIGURE: why", separated by "; "; kept as How is.
	Unknown string `json:"unknown,omitempty"`
	// Figures are the peaks one by one, derived (with how) or not (with why), in the
	// order the backend gave them.
	Figures []PeakFigure `json:"figures,omitempty"`
}

// Figure names besides the precisions of spec.Precisions.
const (
	// MemoryFigure is the memory bandwidth peak's name.
	MemoryFigure = "memory"
	// ArithmeticFigure names every precision's arithmetic peak at once, where the
	// backend can derive none of them for one reason.
	ArithmeticFigure = "arithmetic"
)

// PeakFigure is one figure of a device's peaks: derived, with how, or unknown, with why.
type PeakFigure struct {
	// Name is a precision ("float32", "float64", "float16") for an arithmetic peak,
	// MemoryFigure for the memory bandwidth, ArithmeticFigure for every precision.
	Name    string  `json:"name"`
	Value   float64 `json:"value,omitempty"`   // in Unit; 0 when unknown
	Unit    string  `json:"unit,omitempty"`    // "GFLOP/s" or "GB/s"; "" when unknown
	How     string  `json:"how,omitempty"`     // derived: the attributes and the formula
	Unknown string  `json:"unknown,omitempty"` // not derived: why
}

// Derive records a derived figure: the arithmetic peak of precision name in GFLOP/s, or
// the memory peak (MemoryFigure) in GB/s, with how it was derived.
func (p *Peak) Derive(name string, value float64, how string) {
	f := PeakFigure{Name: name, Value: value, Unit: "GFLOP/s", How: how}
	if name == MemoryFigure {
		f.Unit, p.GBs = "GB/s", value
	} else {
		if p.GFLOPS == nil {
			p.GFLOPS = map[string]float64{}
		}
		p.GFLOPS[name] = value
	}
	p.Figures = append(p.Figures, f)
	p.How = join(p.How, name+" "+how)
}

// Lack records a figure the backend cannot derive, and why.
func (p *Peak) Lack(name, why string) {
	p.Figures = append(p.Figures, PeakFigure{Name: name, Unknown: why})
	p.Unknown = join(p.Unknown, name+": "+why)
}

// HowOf says how the figure name (a precision, or MemoryFigure) was derived: the
// figure's own How, or for a peak stored before Figures, the whole How text.
func (p *Peak) HowOf(name string) string {
	if len(p.Figures) == 0 {
		return p.How
	}
	for _, f := range p.Figures {
		if f.Name == name && f.Unknown == "" {
			return f.How
		}
	}
	return ""
}

// UnknownOf says why the figure name (a precision, or MemoryFigure) could not be derived:
// the figure's own Unknown, for a precision the ArithmeticFigure's where the backend
// lacks every precision at once, or for a peak stored before Figures, the parts of the
// whole Unknown text that name it. "" where the backend derived it or said nothing of it.
func (p *Peak) UnknownOf(name string) string {
	if p == nil {
		return ""
	}
	if len(p.Figures) == 0 {
		var parts []string
		for _, part := range strings.Split(p.Unknown, "; ") {
			if figure, why, ok := strings.Cut(part, ": "); ok && (figure == name || figure == ArithmeticFigure && name != MemoryFigure) {
				parts = append(parts, why)
			}
		}
		return strings.Join(parts, "; ")
	}
	for _, f := range p.Figures {
		if f.Unknown != "" && (f.Name == name || f.Name == ArithmeticFigure && name != MemoryFigure) {
			return f.Unknown
		}
	}
	return ""
}

func join(text, part string) string {
	if text == "" {
		return part
	}
	return strings.Join([]string{text, part}, "; ")
}
