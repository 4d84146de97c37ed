// Package browsertest runs pages in a real headless browser for tests: a page writes
// what it measured of itself as JSON into an element <pre id="measured">, and the test
// reads it back from the browser's --dump-dom.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// Chromium is a headless Chromium or Chrome on the PATH. The test is skipped without one,
// and with -short, as the layout and scripts of a page can only be checked by a browser.
func Chromium(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome-headless-shell", "headless_shell"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no headless Chromium or Chrome on the PATH")
	return ""
}

// Window is the browser's window and how long its page may run.
type Window struct {
	Width, Height int
	// VirtualTime is the page's virtual time budget: timers and fetches within it run
	// before the DOM is dumped.
	VirtualTime time.Duration
	Timeout     time.Duration // the browser's own, in real time
}

// Measure loads url in chrome and decodes the JSON the page wrote into
// <pre id="measured"> into v.
func Measure(t testing.TB, chrome, url string, w Window, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), w.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, chrome, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), fmt.Sprintf("--window-size=%d,%d", w.Width, w.Height),
		fmt.Sprintf("--virtual-time-budget=%d", w.VirtualTime.Milliseconds()), "--dump-dom", url)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", chrome, err)
	}
	m := measuredRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("the page measured nothing:\n%.3000s", out)
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), v); err != nil {
		t.Fatal(err)
	}
}

var measuredRE = regexp.MustCompile(`(?s)<pre id="measured">(.*?)</pre>`)
