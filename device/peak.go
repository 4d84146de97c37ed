package device

// Peak is a device's theoretical throughput: the bounds against which seed 003's
// efficiency (eq. 2) measures a kernel. A backend fills in what it can derive from the
// device's attributes and says how; what it cannot derive is left out, never guessed.
type Peak struct {
	// GFLOPS is the arithmetic peak in GFLOP/s (a fused multiply-add counted as two
	// operations) by precision: "float32", "float64", "float16". A precision the backend
	// cannot derive is absent.
	GFLOPS map[string]float64 `json:"gflops,omitempty"`
	// GBs is the memory bandwidth peak in GB/s (10^9 bytes per second); 0 when unknown.
	GBs float64 `json:"gbs,omitempty"`
	// How says how each peak was derived: the attributes and the formula, one part per
	// figure separated by "; ", each beginning with the figure's name and a space
	// ("float32 ...", "memory ..."), which 'ktune devices' shows a line each.
	How string `json:"how,omitempty"`
	// Unknown says which peaks the backend cannot derive, and why: one part per figure
	// separated by "; ", each "FIGURE: why".
	Unknown string `json:"unknown,omitempty"`
}
