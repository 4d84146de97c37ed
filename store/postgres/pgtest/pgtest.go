// Package pgtest gives tests a real PostgreSQL server: the one that KTUNE_TEST_POSTGRES
// names (a postgres:// URL of a role that may create databases), or else a private server
// that it starts on first use from the installed binaries (initdb, postgres: Debian's
// postgresql package, or any on PATH), in a temporary folder, listening on a unix socket
// there and on no TCP port, and stops when the test binary ends (Main). Each test gets a
// database of its own on it. Tests skip, saying why, when there is neither.
//
// A server refuses to run as root; as root, the private server runs as the user
// "postgres" (made by the package) or else "nobody", and its folder is theirs.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvVar names an existing server to test against instead of a private one.
const EnvVar = "KTUNE_TEST_POSTGRES"

var (
	once    sync.Once
	server  *private // nil when KTUNE_TEST_POSTGRES names the server
	admin   string   // a URL of the server's maintenance database
	skipWhy string   // why tests skip: no server could be had
	failed  error    // the private server did not start
	dbs     atomic.Int64
)

// private is a server this package started.
type private struct {
	dir    string
	cmd    *exec.Cmd
	log    string
	exited chan error // the server's exit, once
}

// Main runs m's tests and then stops the private server, if one was started; a test
// package that uses URL calls it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if server != nil {
		server.stop()
	}
	return code
}

// URL returns the location of a new, empty database for t, which is dropped when t ends;
// it skips t when there is no PostgreSQL to test against, and fails it when the server
// did not start.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(setUp)
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
	if failed != nil {
		t.Fatal(failed)
	}
	ctx := context.Background()
	name := fmt.Sprintf("ktune_test_%d_%d", os.Getpid(), dbs.Add(1))
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: connect to the server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("pgtest: drop database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("pgtest: drop database %s: %v", name, err)
		}
	})
	return withDatabase(admin, name)
}

// withDatabase returns the URL u naming database name instead.
func withDatabase(u, name string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	parsed.Path = "/" + name
	return parsed.String()
}

func setUp() {
	if u := os.Getenv(EnvVar); u != "" {
		admin = u
		return
	}
	bin := binaries()
	if bin == "" {
		skipWhy = "no PostgreSQL server installed (initdb and postgres on PATH or in /usr/lib/postgresql/*/bin: apt-get install postgresql), and " + EnvVar + " names no server"
		return
	}
	server, failed = start(bin)
	if failed != nil {
		failed = fmt.Errorf("pgtest: start a PostgreSQL server from %s: %w", bin, failed)
		return
	}
	admin = (&url.URL{Scheme: "postgres", User: url.User("ktune"), Path: "/postgres",
		RawQuery: url.Values{"host": {server.dir}}.Encode()}).String()
}

// binaries returns the folder of initdb and postgres, "" when none is installed.
func binaries() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("postgres"); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d
		}
	}
	return ""
}

// version reads the major version out of /usr/lib/postgresql/VERSION/bin.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// start makes a cluster in a new temporary folder and starts its server, which listens on
// a socket in the folder only and ends with this process.
func start(bin string) (*private, error) {
	dir, err := os.MkdirTemp("", "ktune-pg-")
	if err != nil {
		return nil, err
	}
	p := &private{dir: dir, log: filepath.Join(dir, "server.log")}
	cred, err := credential(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "ktune", "--auth=trust",
		"--no-sync", "-E", "UTF8", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	logf, err := os.Create(p.log)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer logf.Close()
	if cred != nil {
		os.Chown(p.log, int(cred.Uid), int(cred.Gid))
	}
	// fsync off: a test server's data need not survive a power cut, and syncing every
	// commit would make the tests wait on the disk.
	p.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=32MB")
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGTERM, Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p.exited = make(chan error, 1)
	go func() { p.exited <- p.cmd.Wait() }()
	u := (&url.URL{Scheme: "postgres", User: url.User("ktune"), Path: "/postgres",
		RawQuery: url.Values{"host": {dir}}.Encode()}).String()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, u)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return p, nil
		}
		select {
		case werr := <-p.exited:
			log, _ := os.ReadFile(p.log)
			os.RemoveAll(dir)
			return nil, fmt.Errorf("the server exited (%v):\n%s", werr, log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("the server did not accept connections within 30 s: %w", err)
		}
	}
}

// stop shuts the server down (a fast shutdown: its sessions end) and removes its folder.
func (p *private) stop() {
	p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
	os.RemoveAll(p.dir)
}

// credential returns who the server runs as: nil (this process's user) unless this
// process is root, whom the server refuses; then the user postgres, or else nobody, who
// is given dir.
func credential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, errors.New("running as root, and neither user postgres nor nobody exists to run the server as (the server refuses root)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// ReadOnlyRole makes a role for t that may only read the database at loc (a URL from URL),
// and returns loc as that role: it may connect to the database and SELECT from its tables,
// those there now and those that loc's role creates later, and may create nothing (no
// CREATE on the database or its schema public, no temporary tables), as a role that
// reads results should be. It has no password: the server must let it in without one, as
// the private server does every role. The role is dropped when t ends.
func ReadOnlyRole(t testing.TB, loc string) string {
	t.Helper()
	u, err := url.Parse(loc)
	if err != nil || u.User == nil {
		t.Fatalf("pgtest: %s is not a URL with a user of the server", loc)
	}
	owner := pgx.Identifier{u.User.Username()}.Sanitize()
	database := pgx.Identifier{u.Path[1:]}.Sanitize()
	name := u.Path[1:] + "_reader"
	role := pgx.Identifier{name}.Sanitize()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, loc)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", loc, err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		"CREATE ROLE " + role + " LOGIN",
		"REVOKE ALL ON DATABASE " + database + " FROM PUBLIC",
		"GRANT CONNECT ON DATABASE " + database + " TO " + role,
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
		"GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + role,
		"ALTER DEFAULT PRIVILEGES FOR ROLE " + owner + " IN SCHEMA public GRANT SELECT ON TABLES TO " + role,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("pgtest: %s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, loc)
		if err != nil {
			t.Logf("pgtest: drop role %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		for _, q := range []string{"DROP OWNED BY " + role, "DROP ROLE " + role} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Logf("pgtest: %s: %v", q, err)
			}
		}
	})
	u.User = url.User(name)
	return u.String()
}
