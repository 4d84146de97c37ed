package tuner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

// newDB creates a ktune database in dir and returns its path.
func newDB(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "k.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return db
}

// holder is another process, this test binary running TestHelperHoldRunLock, that tries
// to lock a run and holds it until released.
type holder struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	answer string // "locked", "held" or "error: ..."
}

// startHolder starts a process that locks run of the database at db; env is added to its
// environment, and cred, when set, runs it as another user.
func startHolder(t *testing.T, exe, db string, run int64, cred *syscall.Credential, env ...string) *holder {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^TestHelperHoldRunLock$")
	cmd.Env = append(os.Environ(), append(env, "KTUNE_TEST_LOCK_DB="+db, "KTUNE_TEST_LOCK_RUN="+strconv.FormatInt(run, 10))...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	stdin, stdout := startPiped(t, cmd)
	h := &holder{cmd: cmd, stdin: stdin}
	t.Cleanup(h.release)
	line, err := stdout.ReadString('\n')
	if err != nil {
		t.Fatalf("the holder process said nothing: %v", err)
	}
	h.answer = strings.TrimSpace(line)
	return h
}

// startPiped starts cmd, a helper process of this test binary, with its standard input
// piped from the test and its standard output read by the test line by line; its
// standard error is the test's.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, bufio.NewReader(stdout)
}

// release ends the holder process, and with it its lock.
func (h *holder) release() {
	if h.stdin != nil {
		h.stdin.Close()
		h.cmd.Wait()
		h.stdin = nil
	}
}

// TestHelperHoldRunLock is the holder process of the tests below; it does nothing in a
// normal test run.
func TestHelperHoldRunLock(t *testing.T) {
	db := os.Getenv("KTUNE_TEST_LOCK_DB")
	if db == "" {
		t.Skip("run as another process by the run lock tests")
	}
	run, _ := strconv.ParseInt(os.Getenv("KTUNE_TEST_LOCK_RUN"), 10, 64)
	l, err := LockRun(db, run)
	switch {
	case errors.Is(err, ErrRunHeld):
		fmt.Println("held")
		os.Exit(0)
	case err != nil:
		fmt.Println("error:", err)
		os.Exit(0)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin) // until the test releases it
	l.Release()
	os.Exit(0)
}

// A run locked by one process through a symbolic link to the database is held for a
// process that reaches the database by its own path, with another temporary folder;
// other runs are not; and it is free once the holder ends.
func TestARunLockedThroughASymlinkIsHeldForAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	db := newDB(t, dir)
	links := t.TempDir()
	link := filepath.Join(links, "link.db")
	if err := os.Symlink(db, link); err != nil {
		t.Fatal(err)
	}
	h := startHolder(t, os.Args[0], link, 1, nil, "TMPDIR="+t.TempDir())
	if h.answer != "locked" {
		t.Fatalf("the holder process: %s", h.answer)
	}
	t.Setenv("TMPDIR", t.TempDir())
	if _, err := LockRun(db, 1); !errors.Is(err, ErrRunHeld) {
		t.Errorf("locking run 1 by the database's own path while another process holds it through a link: %v, want ErrRunHeld", err)
	}
	if !RunHeld(db, 1) || !RunHeld("sqlite:"+link, 1) {
		t.Errorf("RunHeld says run 1 is free while another process holds it")
	}
	other, err := LockRun(db, 2)
	if err != nil {
		t.Errorf("run 2, which nobody holds: %v", err)
	}
	other.Release()
	h.release()
	if RunHeld(db, 1) {
		t.Errorf("RunHeld says run 1 is held after its holder ended")
	}
	l, err := LockRun(db, 1)
	if err != nil {
		t.Fatalf("run 1 after its holder ended: %v", err)
	}
	l.Release()
}

// POSIX record locks belong to the process; a run is nevertheless held once in it: a
// second holder (another library user) is refused, also through a symbolic link, and
// releasing one run keeps this process's other runs held for other processes.
func TestARunIsHeldOnceInOneProcess(t *testing.T) {
	db := newDB(t, t.TempDir())
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(db, link); err != nil {
		t.Fatal(err)
	}
	one, err := LockRun(link, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockRun(db, 3); !errors.Is(err, ErrRunHeld) {
		t.Errorf("a second holder of run 3 in this process: %v, want ErrRunHeld", err)
	}
	if !RunHeld(db, 3) {
		t.Errorf("RunHeld says run 3, held by this process, is free")
	}
	four, err := LockRun(db, 4)
	if err != nil {
		t.Fatal(err)
	}
	one.Release()
	if h := startHolder(t, os.Args[0], db, 4, nil); h.answer != "held" {
		t.Errorf("run 4, still held here after run 3 was released, is %s for another process", h.answer)
	}
	four.Release()
	l, err := LockRun(db, 3)
	if err != nil {
		t.Fatalf("run 3 after it was released: %v", err)
	}
	l.Release()
}

// unwritableTemp is a temporary folder that nobody, root included, can create: its
// parent is a file, as a read-only root file system makes /tmp for a container.
func unwritableTemp(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(file, "tmp")
}

// Tuning does not need a temporary folder it can write: the run lock lies beside the
// database.
func TestTuneWithATemporaryFolderThatCannotBeWritten(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "k.db")
	t.Setenv("TMPDIR", unwritableTemp(t))
	rep, err := Tune(context.Background(), Options{SpecPath: vectorAdd, Strategy: "random", Seed: 1, Budget: 2, DB: db, NoPrecompile: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Evaluations != 2 {
		t.Errorf("%d evaluations, want 2", rep.Evaluations)
	}
}

// A database whose runs cannot be locked (here its lock file's name is taken by a
// folder) is refused before a run is stored: no run is left to read as running.
func TestARunThatCannotBeLockedIsNotCreated(t *testing.T) {
	needBackend(t, "c")
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if err := os.Mkdir(db+"-runlock", 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Tune(context.Background(), Options{SpecPath: vectorAdd, Budget: 2, DB: db, NoPrecompile: true})
	if err == nil || !strings.Contains(err.Error(), "run lock") || !strings.Contains(err.Error(), db+"-runlock") {
		t.Fatalf("tuning with a lock file that cannot be opened: %v, want a run lock error naming it", err)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(context.Background(), store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 {
		t.Errorf("a run that could not be locked was stored: %+v", runs)
	}
}

// The lock file takes the database's permissions, not the umask's, so that every user
// who may write the database may lock its runs; when the tests run as root, a process
// of another user locks a run in the lock file that root made.
func TestAnotherUserWhoMayWriteTheDatabaseMayLockItsRuns(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	db := newDB(t, dir)
	if err := os.Chmod(db, 0o666); err != nil {
		t.Fatal(err)
	}
	l, err := LockRun(db, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	fi, err := os.Stat(db + "-runlock")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o666 {
		t.Errorf("the lock file has mode %s, want the database's -rw-rw-rw-", fi.Mode().Perm())
	}
	if os.Geteuid() != 0 {
		t.Skip("another user's process needs root to start")
	}
	// the test binary, where another user may run it; the test's temporary folders, where
	// it may reach them
	bin := t.TempDir()
	for _, d := range []string{bin, filepath.Dir(bin)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(bin, "tuner.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	if h := startHolder(t, exe, db, 2, nobody, "HOME=/"); h.answer != "locked" {
		t.Errorf("another user locking run 2: %s", h.answer)
	}
	if h := startHolder(t, exe, db, 1, nobody, "HOME=/"); h.answer != "held" {
		t.Errorf("another user locking run 1, which root holds: %s", h.answer)
	}
}

// A lock file deleted while its run is tuned (a cleaner of old files) is made again, and
// the run locked in it, when the tuning process checks its lock: another process does
// not take the run then.
func TestALockFileDeletedWhileTuningIsMadeAgain(t *testing.T) {
	db := newDB(t, t.TempDir())
	l, err := LockRun(db, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := os.Remove(db + "-runlock"); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	if h := startHolder(t, os.Args[0], db, 1, nil); h.answer != "held" {
		t.Errorf("another process locking run 1 after its lock file was deleted and checked: %s", h.answer)
	}
}

// creatorRun is the run that TestHelperFindOrCreateRun and the test that starts it both
// want, in the database at db, made by storeWithVectorAdd.
func creatorRun(ctx context.Context, st store.Store) (store.RunInfo, error) {
	spaceID, err := st.PutSpace(ctx, store.Space{Kernel: "vector_add", Params: []space.Param{{Name: "threads", Values: []space.Value{space.IntValue(1), space.IntValue(2)}}}})
	if err != nil {
		return store.RunInfo{}, err
	}
	devID, err := st.PutDevice(ctx, store.Device{Name: "host", Backend: "c"})
	if err != nil {
		return store.RunInfo{}, err
	}
	return store.RunInfo{SpaceID: spaceID, DeviceID: devID, Kind: store.KindTuning, Strategy: "random", Seed: 1,
		Objective: "time", Settings: json.RawMessage(`{"spec_hash": "` + creatorHash + `"}`)}, nil
}

const creatorHash = "0123456789abcdef"

// TestHelperFindOrCreateRun is the other process of
// TestTwoProcessesStartingTheSameRunAtOnceTuneItOnce: it finds or creates the run, stops
// after listing the runs (saying "listed") until a line comes on its standard input,
// says "run ID" and holds it until its standard input closes. It does nothing in a
// normal test run.
func TestHelperFindOrCreateRun(t *testing.T) {
	db := os.Getenv("KTUNE_TEST_CREATE_DB")
	if db == "" {
		t.Skip("run as another process by the run lock tests")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(0)
	}
	in := bufio.NewReader(os.Stdin)
	testHookListed = func() {
		fmt.Println("listed")
		in.ReadString('\n')
	}
	want, err := creatorRun(ctx, st)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(0)
	}
	found, err := findOrCreateRun(ctx, slog.Default(), st, db, want, creatorHash, false, nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(0)
	}
	fmt.Println("run", found.info.ID)
	io.Copy(io.Discard, in)
	os.Exit(0)
}

// The same command started twice at once tunes one run: while one process has looked
// for a run to resume and not yet created and locked its own, the other waits, and then
// finds that run held by the first instead of creating a second run that measures every
// configuration again (QA: three 'ktune tune' started at once made two runs, both tuned).
func TestTwoProcessesStartingTheSameRunAtOnceTuneItOnce(t *testing.T) {
	ctx := context.Background()
	db, st, _, _ := storeWithVectorAdd(t, ctx)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFindOrCreateRun$")
	cmd.Env = append(os.Environ(), "KTUNE_TEST_CREATE_DB="+db)
	stdin, out := startPiped(t, cmd)
	defer cmd.Wait()
	defer stdin.Close()
	if line, _ := out.ReadString('\n'); line != "listed\n" {
		t.Fatalf("the other process: %q, want it to list the runs", line)
	}

	waiting := make(chan struct{})
	testHookCreationWait = func() { close(waiting) }
	defer func() { testHookCreationWait = nil }()
	want, err := creatorRun(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	type found struct {
		run foundRun
		err error
	}
	done := make(chan found, 1)
	go func() {
		r, err := findOrCreateRun(ctx, slog.Default(), st, db, want, creatorHash, false, nil)
		done <- found{r, err}
	}()
	select {
	case <-waiting:
	case r := <-done:
		r.run.lock.Release()
		t.Fatalf("run %d found or created (error %v) while another process was between looking for the run and creating it", r.run.info.ID, r.err)
	}
	fmt.Fprintln(stdin)
	line, _ := out.ReadString('\n')
	var id int64
	if _, err := fmt.Sscanf(line, "run %d", &id); err != nil {
		t.Fatalf("the other process: %q, want its run", line)
	}
	r := <-done
	var held *RunHeldError
	if !errors.As(r.err, &held) || held.Run != id {
		r.run.lock.Release()
		t.Fatalf("starting the run that another process has just created and holds: run %d, error %v; want RunHeldError for run %d", r.run.info.ID, r.err, id)
	}
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Errorf("%d runs stored, want the one the other process tunes", len(runs))
	}
}
