package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/internal/testfs"
)

// fullStdout is standard output on a full disk: every write fails as os.Stdout's does.
type fullStdout struct{}

func (fullStdout) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

// Every command whose standard output cannot be written fails, saying so once: the text
// modes of bench, hypertune, tune, import, analyze, simulate, space and devices exited 0
// with nothing written (QA: `ktune bench ... > full/b.txt`), and those that noticed (the
// --json modes, runs, export) named /dev/stdout.
func TestOutputToAFullDiskFailsTheCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	spec := "../../examples/vector_add/vector_add_c.yaml"
	cases := [][]string{
		{"space", spec},
		{"space", spec, "--json"},
		{"devices"},
		{"analyze", pnpoly, "--bootstrap", "0", "--landscape=false"},
		{"analyze", pnpoly, "--bootstrap", "0", "--landscape=false", "--json"},
		{"simulate", pnpoly, "--budget", "3", "--repeats", "2"},
		{"bench", pnpoly, "--strategies", "random", "--budgets", "20", "--repeats", "2", "--workers", "1"},
		{"hypertune", pnpoly, "--strategy", "firstils", "--grid", "perturbation_size=0.1,0.2", "--budgets", "20", "--repeats", "2",
			"--out", filepath.Join(dir, "defaults.json")},
		{"import", pnpoly, "--db", filepath.Join(dir, "again.db")},
		{"runs", "--db", db},
		{"export", "--db", db, "--run", "1", "--format", "t4"},
		{"space", "--help"},
	}
	if b, ok := device.Lookup("c"); ok {
		if _, err := b.Devices(); err == nil {
			cases = append(cases, []string{"tune", spec, "--budget", "2", "--db", filepath.Join(dir, "tune.db")})
		}
	}
	for _, args := range cases {
		t.Run(args[0], func(t *testing.T) {
			var errOut bytes.Buffer
			code := run(context.Background(), args, fullStdout{}, &errOut)
			want := "ktune " + args[0] + ": writing standard output: no space left on device\n"
			if code != 1 || errOut.String() != want {
				t.Errorf("%v: exit %d, stderr %q; want 1 and %q alone", args, code, errOut.String(), want)
			}
		})
	}
}

// A command that fails before it writes anything says only why; one whose own error
// comes with a lost standard output (tune prints its summary, then fails for nothing
// succeeded) reports both.
func TestOutputLostBesideTheCommandsOwnErrorIsReportedToo(t *testing.T) {
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"space", "no-such-spec.yaml"}, fullStdout{}, &errOut)
	if code != 1 || strings.Contains(errOut.String(), "writing standard output") {
		t.Errorf("a command that wrote nothing: exit %d, %q; want its own error alone", code, errOut.String())
	}
	err := outputFailed(&cliEnv{stderr: &errOut}, &command{name: "tune"}, os.ErrInvalid, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC})
	if err == nil || err.Error() != "writing standard output: no space left on device" || !strings.Contains(errOut.String(), "ktune tune: invalid argument\n") {
		t.Errorf("error %v, stderr %q; want the command's error printed and the output's returned", err, errOut.String())
	}
}

// The same on a real full file system, where one can be mounted (root): standard output
// is a file on a full tmpfs, as with `ktune space spec.yaml > full/out.txt`.
func TestOutputToARealFullDiskFailsTheCommand(t *testing.T) {
	small := testfs.Small(t, "64k")
	fill, err := os.Create(filepath.Join(small, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = fill.Write(make([]byte, 4096))
	}
	fill.Close()
	out, err := os.Create(filepath.Join(small, "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"space", "../../examples/vector_add/vector_add_c.yaml"}, out, &errOut)
	if want := "ktune space: writing standard output: no space left on device\n"; code != 1 || errOut.String() != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut.String(), want)
	}
}
