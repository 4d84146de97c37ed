package tuner

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/worker"
)

// devicePool measures configurations on one or several identical devices, each with a
// supervised worker process of its own (a worker.Supervisor pinned to its device).
//
// The session asks for one configuration at a time (a strategy waits for each fitness),
// so that a second device has work only from the configurations a strategy hints it will
// ask next (random sampling's next draws, brute force's next indices, a population's
// members). A device left idle by the configuration asked for measures the first hinted
// configuration not measured yet, ahead of its ask. What it measured ahead is given to the
// session only when the strategy asks for that configuration: it then counts against the
// budget, is stored and reaches the strategy like any other, exactly once. One never asked
// for (the strategy changed its mind, the budget or a stop condition ended the run) is
// dropped unstored, costing only device time. How many may be measured ahead at once is
// bounded by the devices and by the budget left (room), so that a strategy that asks for
// what it hinted wastes nothing at the budget's end.
//
// With one device nothing is measured ahead: each configuration is measured when asked,
// as before pools existed.
type devicePool struct {
	sp   *space.Space
	devs []*poolDevice
	log  *slog.Logger
	ctx  context.Context // measurements made ahead run in it (the time limit ends it)
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	free     []int              // devices (indices into devs) idle now
	freed    chan struct{}      // signalled when a device comes free
	wanted   bool               // an ask waits for a device: nothing more is measured ahead
	asking   bool               // an ask is being answered, and will count
	room     int                // evaluations the budget has left (math.MaxInt: no budget)
	ahead    map[int]*aheadEval // by space index: measured ahead (or being measured), not asked for yet
	upcoming []space.Config     // the latest hint, less what was measured since
	seen     map[int]bool       // space indices measured here, asked for or ahead
	dropped  int                // measured ahead and never asked for (close counts them)
	closing  sync.Once
}

// poolDevice is one device of a pool and what it measured.
type poolDevice struct {
	index    int    // in its backend
	name     string // as --device and 'ktune devices' name it ("opencl:1"): each evaluation it measured says so
	sup      *worker.Supervisor
	measured int // evaluations of the run it measured (those given to the session)
	ahead    int // of those, how many it measured before they were asked for
}

// aheadEval is a configuration measured ahead of its ask.
type aheadEval struct {
	dev  int
	done chan struct{} // closed once e, wall and err are set
	e    result.Evaluation
	wall time.Duration
	err  error
}

// newDevicePool returns a pool of the backend's devices with these indices and
// supervisors; ahead measurements run in ctx.
func newDevicePool(ctx context.Context, sp *space.Space, backend string, indices []int, sups []*worker.Supervisor, log *slog.Logger) *devicePool {
	p := &devicePool{sp: sp, log: log, freed: make(chan struct{}, 1), room: math.MaxInt,
		ahead: map[int]*aheadEval{}, seen: map[int]bool{}}
	p.ctx, p.stop = context.WithCancel(ctx)
	for i, idx := range indices {
		p.devs = append(p.devs, &poolDevice{index: idx, name: fmt.Sprintf("%s:%d", backend, idx), sup: sups[i]})
		p.free = append(p.free, len(indices)-1-i) // taken from the end: device 0 first
	}
	return p
}

// setRoom says how many evaluations the budget has left, before an ask or a hint (on the
// session's goroutine); math.MaxInt for no budget.
func (p *devicePool) setRoom(n int) {
	p.mu.Lock()
	p.room = n
	p.mu.Unlock()
}

// Hint takes the configurations the strategy says it will ask for next, in order: the
// first device's pre-compilers compile them for every device (worker.Options.
// PrecompiledBy: the devices being identical, the compiler's cache serves all of them),
// and idle devices measure them ahead of their ask.
func (p *devicePool) Hint(cs ...space.Config) {
	if len(p.devs) < 2 {
		p.devs[0].sup.Hint(cs...) // nothing is measured ahead
		return
	}
	p.mu.Lock()
	p.upcoming = p.upcoming[:0]
	todo := make([]space.Config, 0, len(cs))
	for _, c := range cs {
		if i, ok := p.sp.Index(c); ok && !p.seen[i] {
			p.upcoming = append(p.upcoming, c.Clone())
			todo = append(todo, c)
		}
	}
	// Not measured ahead yet: the strategy asks for the configuration it is on right
	// after it hints, and that ask should find a device.
	p.mu.Unlock()
	p.devs[0].sup.Hint(todo...)
}

// measure returns c's evaluation, measured ahead or now on a free device, which it names
// (Evaluation.Device), and the wall time of its measurement less what is no part of it
// (worker.Supervisor.Discounted). An error is the supervisor's (no worker can serve,
// ErrReferenceLost, ErrEnvironment) or ctx's.
func (p *devicePool) measure(ctx context.Context, c space.Config) (result.Evaluation, time.Duration, error) {
	idx, _ := p.sp.Index(c)
	p.mu.Lock()
	p.asking = true
	defer func() {
		p.mu.Lock()
		p.asking = false
		p.mu.Unlock()
	}()
	if a, ok := p.ahead[idx]; ok {
		delete(p.ahead, idx)
		p.kickLocked()
		p.mu.Unlock()
		select {
		case <-a.done:
		case <-ctx.Done():
			return result.Evaluation{}, 0, ctx.Err()
		}
		if a.err == nil {
			p.mu.Lock()
			p.devs[a.dev].measured++
			p.devs[a.dev].ahead++
			p.room--
			p.mu.Unlock()
			return a.e, a.wall, nil
		}
		// cut short (the time limit, an interrupt) or its worker failed to serve: measured
		// now, which says so if it persists
		p.log.Debug("a configuration measured ahead failed to be measured; measuring it now", "error", a.err)
		p.mu.Lock()
	}
	p.seen[idx] = true
	p.upcoming = slices.DeleteFunc(p.upcoming, func(u space.Config) bool { return slices.Equal(u, c) })
	for len(p.free) == 0 {
		p.wanted = true
		p.mu.Unlock()
		select {
		case <-p.freed:
		case <-ctx.Done():
			p.mu.Lock()
			p.wanted = false
			p.mu.Unlock()
			return result.Evaluation{}, 0, ctx.Err()
		}
		p.mu.Lock()
		p.wanted = false
	}
	d := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.kickLocked()
	p.mu.Unlock()

	e, wall, err := p.devs[d].evaluate(ctx, c)
	p.mu.Lock()
	if err == nil {
		p.devs[d].measured++
		p.room--
	}
	p.releaseLocked(d)
	p.mu.Unlock()
	return e, wall, err
}

// evaluate measures c on the device, returning its evaluation, which names the device,
// and its wall time less what is no part of it.
func (d *poolDevice) evaluate(ctx context.Context, c space.Config) (result.Evaluation, time.Duration, error) {
	start := time.Now()
	e, err := d.sup.Evaluate(ctx, c)
	if err == nil {
		e.Device = d.name
	}
	return e, time.Since(start) - d.sup.Discounted(), err
}

// releaseLocked gives device d back, to an ask waiting for one or to a measurement ahead.
func (p *devicePool) releaseLocked(d int) {
	p.free = append(p.free, d)
	select {
	case p.freed <- struct{}{}:
	default:
	}
	p.kickLocked()
}

// kickLocked starts measuring hinted configurations ahead on idle devices: with several
// devices, none waited for by an ask, while fewer than there are devices are ahead and
// the budget has room for them beside the ask being answered.
func (p *devicePool) kickLocked() {
	if len(p.devs) < 2 || p.ctx.Err() != nil {
		return
	}
	for len(p.free) > 0 && !p.wanted && len(p.upcoming) > 0 {
		limit := p.room
		if p.asking {
			limit--
		}
		if len(p.ahead) >= min(limit, len(p.devs)) {
			return
		}
		c := p.upcoming[0]
		p.upcoming = p.upcoming[1:]
		idx, ok := p.sp.Index(c)
		if !ok || p.seen[idx] {
			continue
		}
		p.seen[idx] = true
		d := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		a := &aheadEval{dev: d, done: make(chan struct{})}
		p.ahead[idx] = a
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			e, wall, err := p.devs[d].evaluate(p.ctx, c)
			p.mu.Lock()
			a.e, a.wall, a.err = e, wall, err
			close(a.done)
			p.releaseLocked(d)
			p.mu.Unlock()
		}()
	}
}

// close stops the measurements ahead, then the devices' workers, and returns how many
// configurations were measured ahead and never asked for.
// A second close returns the same count.
func (p *devicePool) close() int {
	p.closing.Do(func() {
		p.stop()
		// the first device's last: the others' measurements use its pre-compilers
		for _, d := range slices.Backward(p.devs) {
			d.sup.Close()
		}
		p.wg.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, a := range p.ahead {
			if a.err == nil {
				p.dropped++
			}
		}
		clear(p.ahead)
	})
	return p.dropped
}

// crashes is the workers that died or were killed, on every device.
func (p *devicePool) crashes() int {
	n := 0
	for _, d := range p.devs {
		n += d.sup.Crashes
	}
	return n
}
