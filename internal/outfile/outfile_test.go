package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// names returns the names in dir, to see that no temporary file is left there.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, e := range entries {
		s = append(s, e.Name())
	}
	return s
}

func TestWriteNewAndExisting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := Write(path, text("one")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// 0666 less the umask, as os.Create gives
	probe := filepath.Join(t.TempDir(), "probe")
	pf, err := os.Create(probe)
	if err != nil {
		t.Fatal(err)
	}
	pf.Close()
	pfi, _ := os.Stat(probe)
	if fi.Mode().Perm() != pfi.Mode().Perm() {
		t.Errorf("new file mode %v, os.Create gives %v", fi.Mode().Perm(), pfi.Mode().Perm())
	}

	// an existing file keeps its permission bits
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, text("two")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after rewrite: %v, want 0600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("content %q", b)
	}

	// a failed write leaves the old content and no temporary file
	boom := errors.New("boom")
	err = Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want write's own", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("content after a failed write %q", b)
	}
	if got := names(t, dir); len(got) != 1 || got[0] != "out.json" {
		t.Errorf("files left: %v", got)
	}

	// a relative path in the working folder
	t.Chdir(dir)
	if err := Write("rel.txt", text("r")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "rel.txt")); string(b) != "r" {
		t.Errorf("relative path: %q", b)
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sub, "real.html")
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o640); err != nil {
		t.Fatal(err)
	}
	// a chain: link1 -> link2 (relative) -> sub/real.html
	if err := os.Symlink("sub/real.html", filepath.Join(dir, "link2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "link2"), filepath.Join(dir, "link1")); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "link1"), text("new")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"link1", "link2"} {
		if fi, err := os.Lstat(filepath.Join(dir, l)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v %v", l, fi, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target content %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v, want 0640", fi.Mode().Perm())
	}
	if got := names(t, sub); len(got) != 1 {
		t.Errorf("files left beside the target: %v", got)
	}

	// a dangling link creates its target, as os.Create would
	if err := os.Symlink("sub/made.txt", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "dangling"), text("made")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "made.txt")); string(b) != "made" {
		t.Errorf("dangling link's target %q", b)
	}

	// a loop is an error, not a hang
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	if err := Write(filepath.Join(dir, "loop1"), text("x")); err == nil {
		t.Error("a loop of links was written")
	}
}

func TestWriteFolder(t *testing.T) {
	dir := t.TempDir()
	err := Write(dir, text("x"))
	if err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("writing a folder: %v", err)
	}
}

// A write that fails on the temporary file (a full disk, as its flush meets it) is said
// of the output, whose name the user gave, not of the temporary file, which is gone: QA
// saw "--csv b.csv: write .b.csv.2400728238.tmp: no space left on device".
func TestAFailedWriteNamesTheOutput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.csv")
	full := func(io.Writer) error {
		tmp, _ := filepath.Glob(filepath.Join(dir, ".b.csv.*.tmp"))
		if len(tmp) != 1 {
			return fmt.Errorf("temporary files %q", tmp)
		}
		return &fs.PathError{Op: "write", Path: tmp[0], Err: syscall.ENOSPC}
	}
	err := Write(path, full)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != path || !errors.Is(Cause(err, path), syscall.ENOSPC) || Cause(err, path) != syscall.ENOSPC {
		t.Errorf("error %v, want one of %s", err, path)
	}
	if left := names(t, dir); len(left) != 0 {
		t.Errorf("left %q", left)
	}
}

// An output that is an input (however its path is written, or through a link) or another
// output is refused, naming both; distinct files, empty paths and devices pass.
func TestDistinctRefusesAnOutputThatIsAnInputOrAnotherOutput(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.json.gz")
	if err := os.WriteFile(rec, []byte("recorded"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json.gz")
	if err := os.Symlink("rec.json.gz", link); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	relative, err := filepath.Rel(wd, filepath.Join(dir, "new.json"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := []Named{{"the recording", rec}, {"the --resume file", ""}}
	for _, tc := range []struct {
		name    string
		outputs []Named
		want    string // "" for none
	}{
		{"distinct", []Named{{"--out", filepath.Join(dir, "d.json")}, {"--csv", filepath.Join(dir, "c.csv")}, {"--checkpoint", ""}}, ""},
		{"a device", []Named{{"--out", os.DevNull}, {"--csv", os.DevNull}}, ""},
		{"the recording", []Named{{"--out", rec}}, "--out " + rec + " is the recording " + rec + ", which writing it would destroy: give --out another file"},
		{"through a link", []Named{{"--csv", link}}, "--csv " + link + " is the recording " + rec},
		{"written otherwise", []Named{{"--csv", filepath.Join(dir, ".", "sub", "..", "rec.json.gz")}}, "is the recording " + rec},
		{"two outputs", []Named{{"--out", filepath.Join(dir, "new.json")}, {"--checkpoint", relative}},
			"--checkpoint " + relative + " is also --out: one would overwrite the other"},
	} {
		err := Distinct(inputs, tc.outputs)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if data, err := os.ReadFile(rec); err != nil || string(data) != "recorded" {
		t.Errorf("the recording: %q, %v", data, err)
	}
}
