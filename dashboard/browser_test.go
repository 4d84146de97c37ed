package dashboard

import (
	"context"
	"fmt"
	"html"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ktune/ktune/internal/browsertest"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// probe is a page of the same origin as the dashboard that opens a dashboard page in a
// frame, works its controls as a user would once its fetches are done (the script %s
// does), and writes what it measured as JSON into #measured, which --dump-dom prints.
const probe = `<!DOCTYPE html>
<html><body>
<iframe id="f" style="width:1300px; height:1000px; border:0" src="%s"></iframe>
<script>
const f = document.getElementById("f");
f.addEventListener("load", async () => {
  const w = f.contentWindow, d = f.contentDocument, out = {};
  const settled = () => w.dashboard.settled();
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const points = () => d.querySelectorAll("#scatter circle.pt").length;
  const bars = id => d.querySelectorAll("#" + id + " .bar").length;
  const cys = () => [...d.querySelectorAll("#scatter circle.pt")].map(c => c.getAttribute("cy")).join(" ");
  const set = (sel, value) => { const e = d.querySelector(sel); e.value = value; e.dispatchEvent(new Event("change")); };
  const untick = sel => { const e = d.querySelector(sel); e.checked = false; e.dispatchEvent(new Event("change")); };
  try {
    await settled();
    %s
  } catch (e) {
    out.error = String(e && e.stack || e);
  }
  const pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
</body></html>`

// measure serves h with a probe page at /probe that opens page and runs script, loads
// the probe in the browser and returns what it measured. extra handlers are served
// beside h.
func measure(t testing.TB, chrome string, h http.Handler, page, script string, extra map[string]http.HandlerFunc) map[string]any {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("/probe", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, probe, page, script)
	})
	for path, f := range extra {
		mux.HandleFunc(path, f)
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var got map[string]any
	browsertest.Measure(t, chrome, srv.URL+"/probe", browsertest.Window{Width: 1400, Height: 1100, VirtualTime: 30 * time.Second, Timeout: 2 * time.Minute}, &got)
	if got["error"] != nil {
		t.Fatalf("the probe failed: %v", got["error"])
	}
	return got
}

func number(t testing.TB, m map[string]any, key string) int {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Fatalf("%s: %v is no number (measured: %v)", key, m[key], m)
	}
	return int(v)
}

// The page of a run draws a point per evaluation; choosing another y axis moves them,
// unticking a value of a parameter leaves its evaluations out of the plot and the
// analysis, and the significance and sensitivity charts have a bar per selected
// parameter; hovering a point shows its configuration.
func TestThePageDrawsTheRunAndFollowsItsControls(t *testing.T) {
	chrome := browsertest.Chromium(t)
	st, db := imported(t, convolution)
	rec := read(t, convolution)
	readOnly := 0
	for _, e := range rec.Evaluations {
		if e.Config[4].Int() == 1 {
			readOnly++
		}
	}
	got := measure(t, chrome, NewStore(st, db), "/runs/1", `
    out.points = points();
    out.significance = bars("significance");
    out.sensitivity = bars("sensitivity");
    out.selected = d.querySelectorAll("#params input:checked").length;
    const before = cys();
    set("#y", "p:block_size_x");
    await settled();
    out.moved = cys() !== before;
    out.pointsY = points();
    untick('#filters input[data-param="read_only"][value="0"]');
    await settled();
    out.filtered = points();
    out.analysed = w.dashboard.state.analysis.evaluations;
    out.address = w.location.search;
    untick('#params input[value="use_padding"]');
    untick('#params input[value="read_only"]');
    await settled();
    out.significance2 = bars("significance");
    out.sensitivity2 = bars("sensitivity");
    const c = d.querySelector("#scatter circle.pt");
    c.dispatchEvent(new MouseEvent("mousemove", {bubbles: true}));
    out.tip = d.getElementById("tip").hidden ? "" : d.getElementById("tip").textContent;
`, nil)
	if n := number(t, got, "points"); n != len(rec.Evaluations) {
		t.Errorf("the scatter has %d points, the run %d evaluations", n, len(rec.Evaluations))
	}
	// six parameters have more than one value (filter_height and filter_width have one)
	for _, key := range []string{"selected", "significance", "sensitivity"} {
		if n := number(t, got, key); n != 6 {
			t.Errorf("%s: %d, want 6 (a bar per selected parameter)", key, n)
		}
	}
	if got["moved"] != true || number(t, got, "pointsY") != len(rec.Evaluations) {
		t.Errorf("with block_size_x as the y axis the points did not move, or their number changed: %v", got)
	}
	if n := number(t, got, "filtered"); n != readOnly {
		t.Errorf("with read_only=0 unticked the scatter has %d points, want %d", n, readOnly)
	}
	if n := number(t, got, "analysed"); n != readOnly {
		t.Errorf("with read_only=0 unticked the analysis covers %d evaluations, want %d", n, readOnly)
	}
	if a, _ := got["address"].(string); !regexp.MustCompile(`y=p%3Ablock_size_x.*hide=read_only%3D0`).MatchString(a) {
		t.Errorf("the address does not hold the selection: %q", a)
	}
	for _, key := range []string{"significance2", "sensitivity2"} {
		if n := number(t, got, key); n != 4 {
			t.Errorf("%s: %d bars with two parameters unticked, want 4", key, n)
		}
	}
	if tip, _ := got["tip"].(string); !regexp.MustCompile(`evaluation \d+: \w+block_size_x\d+`).MatchString(tip) {
		t.Errorf("hovering a point shows %q", tip)
	}
}

// The page of a run measured on two devices offers a check box per device (and one for
// the evaluations no device measured), with its count; unticking one leaves its
// evaluations out of the scatter and the analysis, the address keeps it, and a page
// opened at that address starts with it left out.
func TestTheDeviceFilterLeavesADevicesEvaluationsOut(t *testing.T) {
	chrome := browsertest.Chromium(t)
	st, db := imported(t)
	id, es := twoDevices(t, st)
	on := map[string]int{}
	for _, e := range es {
		on[e.Device]++
	}
	page := "/runs/" + strconv.FormatInt(id, 10)
	h := NewStore(st, db)
	got := measure(t, chrome, h, page, `
    out.shown = !d.getElementById("device-filter").hidden;
    out.boxes = [...d.querySelectorAll("#devices label")].map(l => l.textContent.trim());
    out.points = points();
    untick('#devices input[value="opencl:0"]');
    await settled();
    out.points0 = points();
    out.analysed0 = w.dashboard.state.analysis.evaluations;
    out.n0 = w.dashboard.state.analysis.significance[0].n;
    out.address = w.location.search;
    untick('#devices input[value="-"]');
    await settled();
    out.points1 = points();
    out.analysed1 = w.dashboard.state.analysis.evaluations;
    out.caption = d.getElementById("scatter-caption").textContent;
    untick('#devices input[value="opencl:1"]');
    await settled();
    out.pointsNone = points();
    out.noneNote = d.getElementById("significance-note").textContent;
`, nil)
	if got["shown"] != true {
		t.Fatalf("the device filter is hidden on a run measured on two devices: %v", got)
	}
	boxes, _ := got["boxes"].([]any)
	want := []any{fmt.Sprintf("no device (%d)", on[""]), fmt.Sprintf("opencl:0 (%d)", on["opencl:0"]), fmt.Sprintf("opencl:1 (%d)", on["opencl:1"])}
	if !slices.Equal(boxes, want) {
		t.Errorf("the device filter offers %q, want %q", boxes, want)
	}
	if n := number(t, got, "points"); n != len(es) {
		t.Errorf("%d points before filtering, want %d", n, len(es))
	}
	for _, c := range []struct {
		key  string
		want int
	}{
		{"points0", len(es) - on["opencl:0"]},
		{"analysed0", len(es) - on["opencl:0"]},
		{"points1", on["opencl:1"]},
		{"analysed1", on["opencl:1"]},
		{"pointsNone", 0},
	} {
		if n := number(t, got, c.key); n != c.want {
			t.Errorf("%s: %d, want %d", c.key, n, c.want)
		}
	}
	// the significance is over the configurations of the kept devices only
	valid := 0
	for _, e := range es {
		if e.Device != "opencl:0" && e.Status == result.OK {
			valid++
		}
	}
	if n := number(t, got, "n0"); n != valid {
		t.Errorf("with opencl:0 unticked the significance is over %d configurations, want %d", n, valid)
	}
	if a, _ := got["address"].(string); !strings.Contains(a, "hidedevice=opencl%3A0") {
		t.Errorf("the address does not hold the device filter: %q", a)
	}
	if c, _ := got["caption"].(string); !strings.Contains(c, fmt.Sprintf("%d evaluations shown, %d filtered out", on["opencl:1"], len(es)-on["opencl:1"])) {
		t.Errorf("the caption reads %q", c)
	}
	if n, _ := got["noneNote"].(string); !strings.Contains(n, "every device is filtered out") {
		t.Errorf("with every device unticked the significance note reads %q", n)
	}

	// a link to the view opens it with the device left out
	got = measure(t, chrome, h, page+"?hidedevice=opencl%3A1", `
    out.points = points();
    out.analysed = w.dashboard.state.analysis.evaluations;
    out.checked = d.querySelector('#devices input[value="opencl:1"]').checked;
`, nil)
	if n := number(t, got, "points"); n != len(es)-on["opencl:1"] {
		t.Errorf("opened with opencl:1 hidden: %d points, want %d", n, len(es)-on["opencl:1"])
	}
	if n := number(t, got, "analysed"); n != len(es)-on["opencl:1"] {
		t.Errorf("opened with opencl:1 hidden: %d evaluations analysed, want %d", n, len(es)-on["opencl:1"])
	}
	if got["checked"] != false {
		t.Errorf("opened with opencl:1 hidden, its box is ticked")
	}
}

// The page of a run being tuned adds the evaluations stored while it is open: the probe
// has the test append ten (as a tuning process would) and waits for the page's polls.
func TestThePageOfALiveRunAddsNewEvaluations(t *testing.T) {
	chrome := browsertest.Chromium(t)
	ctx := context.Background()
	st, db := imported(t)
	id, rec := convolutionRun(t, st, 0)
	// the first 40 measured on one device, the ten appended on a second: the page offers
	// the device as a field once there are two
	first := slices.Clone(rec.Evaluations[:40])
	for i := range first {
		first[i].Device = "opencl:0"
	}
	if err := st.AddEvaluations(ctx, id, first); err != nil {
		t.Fatal(err)
	}
	added := 40
	appendTen := func(w http.ResponseWriter, r *http.Request) {
		for _, e := range rec.Evaluations[added : added+10] {
			e.Device = "opencl:1"
			if err := st.AddEvaluation(r.Context(), id, e); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		added += 10
		fmt.Fprint(w, added)
	}
	finish := func(w http.ResponseWriter, r *http.Request) {
		if err := st.FinishRun(r.Context(), id, store.StatusFinished); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}
	got := measure(t, chrome, NewStore(st, db), "/runs/"+strconv.FormatInt(id, 10), `
    out.before = points();
    out.status = d.getElementById("live").textContent;
    out.deviceFieldBefore = [...d.querySelectorAll("#color option")].some(o => o.value === "device");
    const deviceFilterBefore = !d.getElementById("device-filter").hidden;
    await fetch("/append");
    await sleep(4000);
    await settled();
    out.after = points();
    out.live = d.getElementById("live").textContent;
    out.deviceFieldAfter = [...d.querySelectorAll("#color option")].some(o => o.value === "device");
    out.deviceFilterBefore = deviceFilterBefore;
    out.deviceBoxes = [...d.querySelectorAll("#devices label")].map(l => l.textContent.trim());
    untick('#devices input[value="opencl:1"]');
    await settled();
    out.withoutSecond = points();
    out.analysedWithoutSecond = w.dashboard.state.analysis.evaluations;
    d.querySelector('#devices input[value="opencl:1"]').click();
    await settled();
    set("#color", "device");
    await settled();
    out.fills = new Set([...d.querySelectorAll("#scatter circle.pt")].map(c => c.getAttribute("fill"))).size;
    const last = [...d.querySelectorAll("#scatter circle.pt")].pop();
    last.dispatchEvent(new MouseEvent("mousemove", {bubbles: true}));
    out.tip = d.getElementById("tip").hidden ? "" : d.getElementById("tip").textContent;
    await fetch("/finish");
    await sleep(4000);
    await settled();
    out.finished = d.getElementById("live").textContent;
`, map[string]http.HandlerFunc{"/append": appendTen, "/finish": finish})
	if n := number(t, got, "before"); n != 40 {
		t.Errorf("%d points before, want 40", n)
	}
	if n := number(t, got, "after"); n != 50 {
		t.Errorf("%d points after ten were stored, want 50", n)
	}
	if got["deviceFieldBefore"] != false || got["deviceFieldAfter"] != true {
		t.Errorf("the device is offered as a field before a second device measured (%v) or not after (%v)", got["deviceFieldBefore"], got["deviceFieldAfter"])
	}
	if got["deviceFilterBefore"] != false {
		t.Errorf("the device filter is shown before a second device measured")
	}
	if boxes, _ := got["deviceBoxes"].([]any); !slices.Equal(boxes, []any{"opencl:0 (40)", "opencl:1 (10)"}) {
		t.Errorf("once a second device measured, the device filter offers %q", boxes)
	}
	if n := number(t, got, "withoutSecond"); n != 40 {
		t.Errorf("with the second device unticked, %d points, want its 40 of the first", n)
	}
	if n := number(t, got, "analysedWithoutSecond"); n != 40 {
		t.Errorf("with the second device unticked, the analysis covers %d evaluations, want 40", n)
	}
	if n := number(t, got, "fills"); n != 2 {
		t.Errorf("coloured by device, the points have %d colours, want 2 (opencl:0, opencl:1)", n)
	}
	if tip, _ := got["tip"].(string); !strings.Contains(tip, "deviceopencl:") {
		t.Errorf("hovering a point measured on a device shows %q, without it", tip)
	}
	for key, want := range map[string]string{"status": "running · 40 evaluations", "live": "running · 50 evaluations", "finished": "finished · 50 evaluations"} {
		if s, _ := got[key].(string); !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(s) {
			t.Errorf("%s: the status line reads %q, want it to say %q", key, s, want)
		}
	}
}

// The analysis's warnings are phrases without a full stop: the page shows each on a line
// of its own, under the sensitivity chart (where there are no Sobol indices to draw) and
// below the charts, rather than run together.
func TestTheAnalysisWarningsAreShownALineEach(t *testing.T) {
	chrome := browsertest.Chromium(t)
	ctx := context.Background()
	st, db := imported(t)
	id, rec := convolutionRun(t, st, 0)
	// a dozen evaluations of a large space: a partial run, too few for Sobol indices
	if err := st.AddEvaluations(ctx, id, rec.Evaluations[:12]); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, id, store.StatusFinished); err != nil {
		t.Fatal(err)
	}
	got := measure(t, chrome, NewStore(st, db), "/runs/"+strconv.FormatInt(id, 10), `
    out.warnings = w.dashboard.state.analysis.warnings;
    out.below = d.getElementById("warnings").innerText;
    out.note = d.getElementById("sensitivity-note").innerText;
`, nil)
	raw, _ := got["warnings"].([]any)
	var warnings []string
	for _, w := range raw {
		s, _ := w.(string)
		warnings = append(warnings, s)
	}
	if len(warnings) < 2 {
		t.Fatalf("the analysis has %d warnings (%v), want two or more for this test", len(warnings), got["warnings"])
	}
	if note, _ := got["note"].(string); note != strings.Join(warnings, "\n") {
		t.Errorf("the sensitivity note reads %q, want a line per warning: %q", note, warnings)
	}
	if below, _ := got["below"].(string); below != "Analysis:\n"+strings.Join(warnings, "\n") {
		t.Errorf("the analysis line reads %q, want a line per warning: %q", below, warnings)
	}
}

// The list of runs follows the database: a run started while the page is open appears
// in it, and a running run's count of evaluations grows, without a reload, each row
// written as the server writes it (the seed of the new run does not fit a JavaScript
// number).
func TestTheListOfRunsShowsRunsStartedSince(t *testing.T) {
	chrome := browsertest.Chromium(t)
	ctx := context.Background()
	st, db := imported(t, timeEnergy)
	running, rec := convolutionRun(t, st, 7)
	info, err := st.Run(ctx, running) // the new run's space and device are the running one's
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvaluations(ctx, running, rec.Evaluations[:40]); err != nil {
		t.Fatal(err)
	}
	const seed = 1<<63 + 5
	start := func(w http.ResponseWriter, r *http.Request) {
		err := st.AddEvaluations(r.Context(), running, rec.Evaluations[40:50])
		if err == nil {
			var id int64
			if id, err = st.CreateRun(r.Context(), store.RunInfo{SpaceID: info.SpaceID, DeviceID: info.DeviceID, Kind: store.KindTuning, Strategy: "genetic", Seed: seed}); err == nil {
				err = st.AddEvaluations(r.Context(), id, rec.Evaluations[100:105])
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}
	h := NewStore(st, db)
	got := measure(t, chrome, h, "/", `
    const rows = () => [...d.querySelectorAll("#runs tbody tr")].map(tr => tr.textContent);
    out.before = rows();
    const r = await fetch("/start");
    if (!r.ok) throw new Error("/start: " + await r.text());
    await sleep(6000);
    await settled();
    out.after = rows();
    out.refreshes = w.dashboard.state.refreshes;
    out.note = d.getElementById("refresh").textContent;
`, map[string]http.HandlerFunc{"/start": start})
	texts := func(key string) []string {
		raw, _ := got[key].([]any)
		var out []string
		for _, x := range raw {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	before, after := texts("before"), texts("after")
	if len(before) != 2 || !strings.Contains(before[1], "40 (") {
		t.Fatalf("before: %q, want two runs, the second of 40 evaluations", before)
	}
	// the rows as the server writes them now
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range regexp.MustCompile(`(?s)<tr data-id="\d+">(.*?)</tr>`).FindAllStringSubmatch(string(page), -1) {
		want = append(want, html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[1], "")))
	}
	if len(want) != 3 {
		t.Fatalf("the server lists %d runs, want 3", len(want))
	}
	if !slices.Equal(after, want) {
		t.Errorf("after a run started and another grew, the page lists\n%q\nthe server\n%q", after, want)
	}
	if len(after) == 3 && (!strings.Contains(after[1], "50 (") || !strings.Contains(after[2], "genetic (seed 9223372036854775813)")) {
		t.Errorf("the rows do not show the grown run and the new one: %q", after)
	}
	if n := number(t, got, "refreshes"); n < 1 {
		t.Errorf("%d refreshes in 6 s", n)
	}
	if note, _ := got["note"].(string); !strings.Contains(note, "follows the database") {
		t.Errorf("the note under the list reads %q", note)
	}
}

// Unticking every box of a filter (every status, every value of a parameter) leaves no
// point and says so in place of the analysis, without asking the server for an analysis
// of nothing; ticking one again brings both back.
func TestUntickingAWholeFilterSaysSo(t *testing.T) {
	chrome := browsertest.Chromium(t)
	st, db := imported(t, convolution)
	rec := read(t, convolution)
	var mu sync.Mutex
	var asked []string // the queries of the analyses the page asked for
	h := NewStore(st, db)
	recorder := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/analysis") {
			mu.Lock()
			asked = append(asked, r.URL.RawQuery)
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
	got := measure(t, chrome, recorder, "/runs/1", `
    out.statuses = d.querySelectorAll("#statuses input").length;
    d.querySelectorAll("#statuses input").forEach(c => { c.checked = false; c.dispatchEvent(new Event("change")); });
    await settled();
    out.statusPoints = points();
    out.statusNote = d.getElementById("significance-note").textContent;
    out.statusBars = bars("significance");
    d.querySelector("#statuses input").click();
    await settled();
    out.onePoints = points();
    out.oneAnalysed = w.dashboard.state.analysis.evaluations;
    d.querySelectorAll("#statuses input").forEach(c => { if (!c.checked) c.click(); });
    await settled();
    const buttons = [...d.querySelectorAll("#filters details")].find(x => x.querySelector("summary").textContent.startsWith("read_only")).querySelectorAll("button");
    buttons[1].click(); // none
    await settled();
    out.valuePoints = points();
    out.valueNote = d.getElementById("significance-note").textContent;
    untick('#filters input[data-param="block_size_x"][value="16"]');
    await settled();
    out.stillNote = d.getElementById("significance-note").textContent;
    d.querySelector('#filters input[data-param="read_only"][value="1"]').click();
    await settled();
    out.keptNote = d.getElementById("significance-note").textContent;
    out.keptAnalysed = w.dashboard.state.analysis.evaluations;
`, nil)
	if n := number(t, got, "statuses"); n < 2 {
		t.Fatalf("the page offers %d status boxes: the test needs several", n)
	}
	for _, c := range []struct{ points, note, want string }{
		{"statusPoints", "statusNote", "every status is filtered out: show at least one to analyse"},
		{"valuePoints", "valueNote", "every value of read_only is filtered out: show at least one to analyse"},
		{"", "stillNote", "every value of read_only is filtered out"},
	} {
		if c.points != "" && number(t, got, c.points) != 0 {
			t.Errorf("%s: %d points, want none", c.points, number(t, got, c.points))
		}
		if n, _ := got[c.note].(string); !strings.Contains(n, c.want) {
			t.Errorf("%s: the significance note reads %q, want %q", c.note, n, c.want)
		}
	}
	if n := number(t, got, "statusBars"); n != 0 {
		t.Errorf("with every status unticked the significance chart has %d bars", n)
	}
	// the first status box is ok's
	ok := 0
	for _, e := range rec.Evaluations {
		if e.Status == result.OK {
			ok++
		}
	}
	if number(t, got, "onePoints") != ok || number(t, got, "oneAnalysed") != ok {
		t.Errorf("with ok ticked again: %d points, %d analysed, want %d", number(t, got, "onePoints"), number(t, got, "oneAnalysed"), ok)
	}
	if n, _ := got["keptNote"].(string); !strings.Contains(n, fmt.Sprintf("of the run's %d evaluations that match the filters", len(rec.Evaluations))) {
		t.Errorf("filtered again, the significance note reads %q", n)
	}
	if number(t, got, "keptAnalysed") >= len(rec.Evaluations) || number(t, got, "keptAnalysed") == 0 {
		t.Errorf("with read_only=1 and block_size_x≠16 kept, %d evaluations analysed of %d", number(t, got, "keptAnalysed"), len(rec.Evaluations))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, q := range asked {
		v, err := url.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		if s, has := v["status"]; has && (slices.Contains(s, "") || slices.Contains(s, "none")) {
			t.Errorf("the page asked for an analysis of no status: %s", q)
		}
		keeps := func(name string) bool {
			return slices.ContainsFunc(v["keep"], func(k string) bool { return strings.HasPrefix(k, name+"=") })
		}
		if keeps("block_size_x") && !keeps("read_only") {
			t.Errorf("the page asked for an analysis with every value of read_only left out, as if none was: %s", q)
		}
	}
}

// A link naming what the run does not have (a parameter, a value of one, a device of a
// run that no device measured, a filter on a parameter of one value) opens the run's
// page as if it did not name it, and the address the page writes back drops it.
func TestALinkNamingWhatTheRunLacksShowsEverything(t *testing.T) {
	chrome := browsertest.Chromium(t)
	st, db := imported(t, convolution)
	rec := read(t, convolution)
	one := ""
	for _, p := range rec.Params {
		if len(p.Values) == 1 {
			one = p.Name + "%3D" + url.QueryEscape(p.Values[0].String())
		}
	}
	if one == "" {
		t.Fatal("the test needs a parameter of one value")
	}
	got := measure(t, chrome, NewStore(st, db),
		"/runs/1?params=block_size_x,nosuch&hide=read_only%3D7&hide=nosuch%3D1&hide="+one+"&hidedevice=-", `
    out.points = points();
    out.analysed = w.dashboard.state.analysis.evaluations;
    out.bars = bars("significance");
    out.summary = [...d.querySelectorAll("#filters summary")].map(s => s.textContent).join(" ");
    out.address = w.location.search;
`, nil)
	for _, key := range []string{"points", "analysed"} {
		if n := number(t, got, key); n != len(rec.Evaluations) {
			t.Errorf("%s: %d, want all %d evaluations", key, n, len(rec.Evaluations))
		}
	}
	if n := number(t, got, "bars"); n != 1 {
		t.Errorf("the significance of %d parameters, want 1 (block_size_x)", n)
	}
	if s, _ := got["summary"].(string); strings.Contains(s, " of ") {
		t.Errorf("the filters count hidden values: %q", s)
	}
	if a, _ := got["address"].(string); strings.Contains(a, "nosuch") || strings.Contains(a, "hide=") || !strings.Contains(a, "params=block_size_x") {
		t.Errorf("the page writes back the address %q", a)
	}
}

// A configuration found wrong in the run (a wrong_answer evaluation stored after its
// success, as a check after dynamic tuning stores one, here while the page follows the
// run live) counts nowhere as a success: the best-so-far line passes over it and ends at
// the runner-up's time; its point turns from an ok one to one of its own colour, with a
// "found wrong" legend entry, left out of the colour ramp's range (whose end marks the
// best); the status filter counts it apart, as the status line does, and ticking its box
// on and off shows and hides it in the scatter and the analysis.
func TestTheBestSoFarPassesOverAConfigurationFoundWrong(t *testing.T) {
	chrome := browsertest.Chromium(t)
	ctx := context.Background()
	st, db := imported(t)
	id, rec := convolutionRun(t, st, 0)
	evals := slices.Clone(rec.Evaluations[:12])
	best, next := -1, -1
	for i, e := range evals {
		if !e.Failed() && (best < 0 || e.Objective < evals[best].Objective) {
			best = i
		}
	}
	for i, e := range evals {
		if !e.Failed() && i != best && (next < 0 || e.Objective < evals[next].Objective) {
			next = i
		}
	}
	if err := st.AddEvaluations(ctx, id, evals); err != nil {
		t.Fatal(err)
	}
	found := result.Evaluation{Config: evals[best].Config, Status: result.WrongAnswer, Objective: math.NaN(),
		Message: "found wrong by a check on call 4, after tuning (against the reference)"}
	foundWrong := func(w http.ResponseWriter, r *http.Request) {
		if err := st.AddEvaluation(r.Context(), id, found); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}
	finish := func(w http.ResponseWriter, r *http.Request) {
		if err := st.FinishRun(r.Context(), id, store.StatusFinished); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}
	got := measure(t, chrome, NewStore(st, db), "/runs/"+strconv.FormatInt(id, 10)+"?best=1", `
    const circle = i => d.querySelector('#scatter circle.pt[data-i="' + i + '"]');
    const fill = i => { const c = circle(i); return c ? c.getAttribute("fill") : "none"; };
    const cy = i => { const c = circle(i); return c ? c.getAttribute("cy") : "none"; };
    const boxes = () => [...d.querySelectorAll("#statuses label")].map(l => l.textContent.trim());
    const legend = () => [...d.querySelectorAll("#legend .sw")].map(s => s.textContent.trim() + " " + s.querySelector("i").style.background);
    const low = () => { const l = d.querySelector("#legend > span:first-child"); return l ? l.textContent : ""; };
    const okFills = () => [...new Set([...d.querySelectorAll("#scatter circle.pt:not(.failed):not(.wrong)")].map(c => c.getAttribute("fill")))];
    const fastest = `+strconv.Itoa(best)+`, next = `+strconv.Itoa(next)+`;
    out.boxesBefore = boxes();
    out.fastestBefore = fill(fastest);
    out.lowBefore = low();
    await fetch("/foundwrong");
    await sleep(4000);
    await settled();
    out.boxes = boxes();
    out.live = d.querySelector("#live").textContent;
    const line = d.querySelector("#scatter polyline.best");
    const pts = line ? line.getAttribute("points").trim().split(" ") : [];
    out.last = pts.length ? pts[pts.length - 1].split(",")[1] : "";
    out.fastest = cy(fastest);
    out.next = cy(next);
    out.fastestFill = fill(fastest);
    out.fastestClass = circle(fastest) ? circle(fastest).getAttribute("class") : "";
    out.legend = legend();
    out.low = low();
    if (circle(fastest)) circle(fastest).dispatchEvent(new MouseEvent("mousemove", {bubbles: true}));
    out.tip = d.getElementById("tip").hidden ? "" : d.getElementById("tip").textContent;
    set("#color", "status");
    await settled();
    out.statusFastest = fill(fastest);
    out.statusOK = okFills();
    out.statusLegend = legend();
    out.points = points();
    out.analysed = w.dashboard.state.analysis.evaluations;
    const box = d.querySelector('#statuses input[value="found_wrong"]');
    if (box) {
      box.click();
      await settled();
      out.hiddenPoints = points();
      out.hiddenFastest = circle(fastest) ? "drawn" : "";
      out.hiddenAnalysed = w.dashboard.state.analysis.evaluations;
      out.hiddenAddress = w.location.search;
      box.click();
      await settled();
      out.shownPoints = points();
      out.shownAnalysed = w.dashboard.state.analysis.evaluations;
    }
    untick('#statuses input[value="ok"]');
    await settled();
    out.withoutOK = points();
    out.withoutOKFastest = circle(fastest) ? "drawn" : "";
    await fetch("/finish");
    await sleep(4000);
    await settled();
`, map[string]http.HandlerFunc{"/foundwrong": foundWrong, "/finish": finish})
	if got["next"] == got["fastest"] {
		t.Fatalf("the runner-up and the fastest are drawn at one height, %v: the test cannot tell them apart", got["next"])
	}
	if got["last"] != got["next"] {
		t.Errorf("the best so far ends at y %v; the runner-up (evaluation %d) is at %v, the fastest (%d, found wrong) at %v",
			got["last"], next, got["next"], best, got["fastest"])
	}
	failedBy, failed := map[string]int{}, 0 // the failures by status, and in all
	for _, e := range evals {
		if e.Failed() {
			failedBy[e.Status.String()]++
			failed++
		}
	}
	succeeded := len(evals) - failed
	failures := func(extra ...string) []any {
		var out []any
		for _, s := range extra {
			out = append(out, s)
		}
		for _, s := range sortedKeys(failedBy) {
			out = append(out, fmt.Sprintf("%s (%d)", s, failedBy[s]))
		}
		return out
	}
	// the status line and the status filter count the success found wrong apart, alike
	if want := fmt.Sprintf("13 evaluations (%d ok, 1 found wrong)", succeeded-1); !strings.Contains(fmt.Sprint(got["live"]), want) {
		t.Errorf("the status line %q lacks %q", got["live"], want)
	}
	if boxes, want := got["boxesBefore"].([]any), failures(fmt.Sprintf("ok (%d)", succeeded)); !slices.Equal(boxes, want) {
		t.Errorf("before the wrong answer, the status filter offers %q, want %q", boxes, want)
	}
	failedBy["wrong_answer"]++
	if boxes, want := got["boxes"].([]any), failures(fmt.Sprintf("ok (%d)", succeeded-1), "found wrong (1)"); !slices.Equal(boxes, want) {
		t.Errorf("once the fastest was found wrong, the status filter offers %q, want %q", boxes, want)
	}
	// coloured by the objective: the fastest is an ok point at the ramp's low end until
	// found wrong, then one of the found-wrong colour, and the ramp starts at the runner-up
	const wrongColour = "rgb(255, 0, 255)"
	if got["fastestBefore"] == "#ff00ff" || got["fastestFill"] != "#ff00ff" || !strings.Contains(fmt.Sprint(got["fastestClass"]), "wrong") {
		t.Errorf("the fastest's point is filled %v before it was found wrong and %v (class %q) after; want a ramp colour, then #ff00ff (class wrong)",
			got["fastestBefore"], got["fastestFill"], got["fastestClass"])
	}
	if legend := got["legend"].([]any); !slices.Equal(legend, []any{"found wrong " + wrongColour}) {
		t.Errorf("coloured by the objective, the legend's entries are %q, want the found-wrong one alone", legend)
	}
	low := func(key string) float64 {
		text := fmt.Sprint(got[key])
		v, err := strconv.ParseFloat(text[strings.LastIndex(text, " ")+1:], 64)
		if err != nil {
			t.Fatalf("%s: the ramp's low end reads %q: %v", key, text, err)
		}
		return v
	}
	for key, want := range map[string]float64{"lowBefore": evals[best].Objective, "low": evals[next].Objective} {
		if v := low(key); math.Abs(v-want) > 1e-3*want {
			t.Errorf("%s: the colour ramp starts at %g, want %g (the fastest %g, found wrong; the runner-up %g)",
				key, v, want, evals[best].Objective, evals[next].Objective)
		}
	}
	if tip, want := fmt.Sprint(got["tip"]), fmt.Sprintf("evaluation %d: found wrong", best); !strings.HasPrefix(tip, want) || !strings.Contains(tip, "no success") {
		t.Errorf("hovering the fastest's point shows %q, want it to start %q and say it is no success", tip, want)
	}
	// coloured by status: ok blue, found wrong its own colour, after ok in the legend
	if got["statusFastest"] != "#ff00ff" || !slices.Equal(got["statusOK"].([]any), []any{"#1f77b4"}) {
		t.Errorf("coloured by status, the found-wrong point is %v and the ok ones %v; want #ff00ff and #1f77b4 alone", got["statusFastest"], got["statusOK"])
	}
	if legend := got["statusLegend"].([]any); len(legend) < 3 || legend[0] != "ok rgb(31, 119, 180)" || legend[1] != "found wrong "+wrongColour {
		t.Errorf("coloured by status, the legend's entries are %q; want ok, then found wrong (%s), then the failures", legend, wrongColour)
	}
	// ticking its box off and on hides and shows it, in the scatter and the analysis
	all := number(t, got, "points")
	for key, want := range map[string]int{"points": 13, "analysed": 13, "hiddenPoints": 12, "hiddenAnalysed": 12,
		"shownPoints": 13, "shownAnalysed": 13, "withoutOK": 13 - (succeeded - 1)} {
		if v, found := got[key]; !found {
			t.Errorf("%s: not measured (the status filter has no found-wrong box: %q)", key, got["boxes"])
		} else if n := int(v.(float64)); n != want {
			t.Errorf("%s: %d, want %d (of %d)", key, n, want, all)
		}
	}
	if got["hiddenFastest"] != "" || got["withoutOKFastest"] != "drawn" {
		t.Errorf("the found-wrong point is drawn %v with found wrong unticked, %v with ok unticked; want it hidden, then drawn", got["hiddenFastest"], got["withoutOKFastest"])
	}
	if a, _ := got["hiddenAddress"].(string); !strings.Contains(a, "hidestatus=found_wrong") {
		t.Errorf("with found wrong unticked, the page's address is %q", a)
	}
}
