// Package sensitivity tells which tunable parameters matter to a kernel's objective and how
// they interact (seed 004, Sections 3.1-3.2).
//
// Two analyses work on a table of measured configurations (failed ones dropped):
// Significance correlates each parameter's value with the objective (Pearson and
// Spearman), and SobolTable apportions the objective's variance to parameters and pairs of
// parameters (first-, second- and total-order Sobol indices), exactly when the table is the
// full cartesian product of the values and as an empirical estimate otherwise. A third
// route serves live tuning under a budget: NewDesign draws a Saltelli sampling design from
// the valid space, something (the saltelli strategy, a simulator) measures its points, and
// Design.Estimate turns the measurements into indices. Empirical and Saltelli indices come
// with 95% percentile-bootstrap intervals, reproducible from Options.Seed; exact ones,
// computed from the whole population they describe, have no sampling error and no interval.
// Intervals of empirical first- and total-order indices are kept within [0, 1]; Saltelli's
// Monte Carlo estimates and their intervals are not clamped (as in SALib).
package sensitivity
