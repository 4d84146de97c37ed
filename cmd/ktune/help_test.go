package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// helpFlag is a flag as the Flags section lists it: "  -name" at the start of a line
	helpFlag = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)(?: [^\n]*)?\n((?:    \t[^\n]*\n?)*)`)
	// mentionedFlag is a flag as a usage text names it: --name or -n after a space,
	// bracket, bar, parenthesis or quote
	mentionedFlag = regexp.MustCompile("(?:^|[\\s\\[(|'`\"])(--[a-z][a-z0-9-]*|-[a-z])\\b")
)

// flagsOf is the flags the help of a command lists, each with its description.
func flagsOf(help string) map[string]string {
	_, list, ok := strings.Cut(help, "\nFlags:\n")
	if !ok {
		return nil
	}
	flags := map[string]string{}
	for _, m := range helpFlag.FindAllStringSubmatch(list, -1) {
		flags[m[1]] = strings.TrimSpace(m[2])
	}
	return flags
}

// Every command's help is the same however it is asked for, every flag it lists has a
// description, and every flag its text names is one of its own, or one of a command the
// text names ('ktune bench --json'), or --help; the synopsis (the text's first paragraph)
// names its own flags only. Flags that the code defines are listed by the flag package
// itself, so a flag renamed or removed in the code and left in the text fails here.
func TestEveryCommandsHelpNamesItsOwnFlags(t *testing.T) {
	helps := map[string]string{}
	for _, c := range commands {
		if c.hidden {
			continue
		}
		long, errLong, code := ktune(t, c.name, "--help")
		if code != 0 || errLong != "" {
			t.Fatalf("%s --help: exit %d: %s", c.name, code, errLong)
		}
		for _, args := range [][]string{{"help", c.name}, {c.name, "-h"}, {c.name, "-help"}} {
			if out, errOut, code := ktune(t, args...); code != 0 || errOut != "" || out != long {
				t.Errorf("%q: exit %d, %s, and not the same as %s --help", args, code, errOut, c.name)
			}
		}
		helps[c.name] = long
	}
	owners := map[string][]string{} // flag name: the commands that have it
	for name, help := range helps {
		flags := flagsOf(help)
		if len(flags) == 0 {
			t.Errorf("%s --help lists no flags:\n%s", name, help)
		}
		for f, doc := range flags {
			owners[f] = append(owners[f], name)
			if doc == "" {
				t.Errorf("%s --%s has no description", name, f)
			}
		}
	}
	for name, help := range helps {
		text, _, _ := strings.Cut(help, "\nFlags:\n")
		flags := flagsOf(help)
		synopsis, _, _ := strings.Cut(text, "\n\n")
		for _, m := range mentionedFlag.FindAllStringSubmatch(synopsis, -1) {
			if f := strings.TrimLeft(m[1], "-"); flags[f] == "" {
				t.Errorf("%s: the synopsis names %s, which is not one of its flags", name, m[1])
			}
		}
		for _, m := range mentionedFlag.FindAllStringSubmatch(text, -1) {
			f := strings.TrimLeft(m[1], "-")
			if flags[f] != "" || f == "help" {
				continue
			}
			named := false
			for _, other := range owners[f] {
				named = named || regexp.MustCompile(`\b`+other+`\b`).MatchString(text)
			}
			if !named {
				t.Errorf("%s: its help names %s, which is neither one of its flags nor one of a command it names (%v have it)", name, m[1], owners[f])
			}
		}
	}
}

// The output file is -o or --out in every command that writes one (QA: export and report
// took only -o and hypertune only --out, so 'ktune export --out FILE' was refused).
func TestOutputFileIsDashOOrDashDashOut(t *testing.T) {
	db := storeRun(t, threeConfigs("time", false, 3, 2, 1))
	dir := t.TempDir()
	for _, flagName := range []string{"-o", "--out"} {
		exported := filepath.Join(dir, "export"+flagName+".json")
		if _, errOut, code := ktune(t, "export", "--db", db, "--run", "1", "--format", "t4", flagName, exported); code != 0 {
			t.Fatalf("export %s: exit %d: %s", flagName, code, errOut)
		}
		if b, err := os.ReadFile(exported); err != nil || !strings.Contains(string(b), `"results"`) {
			t.Errorf("export %s wrote %.80q (%v)", flagName, b, err)
		}
		html := filepath.Join(dir, "report"+flagName+".html")
		if _, errOut, code := ktune(t, "report", "1", "--db", db, "--bootstrap", "0", "--graph-nodes", "0", flagName, html); code != 0 {
			t.Fatalf("report %s: exit %d: %s", flagName, code, errOut)
		}
		if b, err := os.ReadFile(html); err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
			t.Errorf("report %s wrote %.80q (%v)", flagName, b, err)
		}
		defaults := filepath.Join(dir, "hypertune"+flagName+".json")
		if _, errOut, code := ktune(t, "hypertune", pnpoly, "--strategy", "greedymls", "--grid", "restart=true,false",
			"--budgets", "10", "--repeats", "2", flagName, defaults); code != 0 {
			t.Fatalf("hypertune %s: exit %d: %s", flagName, code, errOut)
		}
		if b, err := os.ReadFile(defaults); err != nil || !strings.Contains(string(b), "greedymls") {
			t.Errorf("hypertune %s wrote %.80q (%v)", flagName, b, err)
		}
	}
}

// Commands that take no arguments refuse them alike, naming what was given.
func TestCommandsWithoutArgumentsNameWhatWasGiven(t *testing.T) {
	for _, args := range [][]string{{"devices", "extra"}, {"runs", "--db", filepath.Join(t.TempDir(), "k.db"), "extra"}} {
		_, errOut, code := ktune(t, args...)
		if want := "ktune " + args[0] + ": no arguments expected, got extra\n"; code != 2 || !strings.HasPrefix(errOut, want) {
			t.Errorf("%q: exit %d: %q, want %q", args, code, errOut, want)
		}
	}
}

// ktune help names the peaks' flags and file and says that tune stores them; its peaks
// topic gives the file's format, the order in which sources win, and how a stored peak
// is named.
func TestHelpSaysWhereThePeaksComeFrom(t *testing.T) {
	main, _, code := ktune(t, "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for _, want := range []string{"--peak-gbs GB/s", "--peak-gflops", "--peaks FILE", "{gbs: GB/s, gflops: {float32: GFLOP/s, ...}}",
		"Tune stores the peaks it used with the run", "'ktune help peaks'"} {
		if !strings.Contains(main, want) {
			t.Errorf("ktune help lacks %q", want)
		}
	}
	peaks, _, code := ktune(t, "help", "peaks")
	if code != 0 {
		t.Fatalf("help peaks: exit %d", code)
	}
	for _, want := range []string{`"opencl:1": {gbs: 25.6, gflops: {float32: 150}}`, "stored with run 3: given: --peak-gbs", "the first that gives it winning",
		"(flag, and which; file, with its path and the device's entry;\nderived, with how)",
		"'ktune tune --stop-within-peak\nF' on an interrupted run stops against them", "names each figure missing",
		"Tune refuses --stop-within-peak so before any run is created, resumed or changed"} {
		if !strings.Contains(peaks, want) {
			t.Errorf("ktune help peaks lacks %q", want)
		}
	}
}
