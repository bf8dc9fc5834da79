// Package pgtest runs a throwaway PostgreSQL server for tests: initdb into a
// new temporary directory, postgres listening on a unix socket there only
// (no TCP port), trust authentication for one superuser. One server per
// test package (from TestMain) is the intended use; each test then takes a
// database of its own with NewDatabase.
//
// PostgreSQL refuses to run as root, so under root (CI) the server runs as
// the unprivileged user "nobody", which then owns the data directory.
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
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoServer says no PostgreSQL server binaries were found: tests skip.
var ErrNoServer = errors.New("no PostgreSQL server binaries (initdb, postgres) found: install Debian's postgresql package or put pg_config on PATH")

// superuser is the role initdb creates; trust authentication on the socket.
const superuser = "perfls"

// Server is a running throwaway server.
type Server struct {
	dir  string // holds data/ and the socket
	cmd  *exec.Cmd
	done chan error // the server's exit, once
	n    atomic.Int64
}

// BinDir finds the directory holding initdb and postgres: pg_config
// --bindir, else the newest /usr/lib/postgresql/*/bin.
func BinDir() (string, error) {
	var candidates []string
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		candidates = append(candidates, dirs[i])
	}
	for _, d := range candidates {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", ErrNoServer
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Start initialises and starts a server; Stop stops it and removes its
// files. It returns ErrNoServer when there is no server to run.
func Start(ctx context.Context) (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	// Not under t.TempDir(): its parents are private to root, and the server
	// may run as nobody.
	dir, err := os.MkdirTemp("", "perfls-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{dir: dir, done: make(chan error, 1)}
	cred, err := unprivileged()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: hand %s to the server's user: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", superuser, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	defer log.Close()
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "max_connections=50")
	s.cmd.Stdout, s.cmd.Stderr = log, log
	// Pdeathsig: a test binary that dies still takes its server along.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGINT}
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: start postgres: %w", err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		b, _ := os.ReadFile(log.Name())
		return nil, fmt.Errorf("pgtest: %w\n%s", err, b)
	}
	return s, nil
}

// unprivileged is the user the server runs as: nil (this process's) unless
// this process is root, then nobody.
func unprivileged() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, and PostgreSQL will not: no user nobody to run it as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("postgres exited: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("postgres not ready: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// URL is a connection URL for database db on the server's socket.
func (s *Server) URL(db string) string {
	q := url.Values{"host": {s.dir}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User(superuser), Path: "/" + db, RawQuery: q.Encode()}).String()
}

// NewDatabase creates a new empty database and returns its URL.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("test%d", s.n.Add(1))
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return s.URL(name), nil
}

// Stop shuts the server down (fast shutdown), reaps it and removes its
// files.
func (s *Server) Stop() error {
	var err error
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case err = <-s.done:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			err = <-s.done
		}
		s.done <- err
	}
	os.RemoveAll(s.dir)
	if err != nil && !isSignalExit(err) {
		return fmt.Errorf("pgtest: postgres: %w", err)
	}
	return nil
}

// isSignalExit: postgres exits 0 on SIGINT; a kill shows as a signal.
func isSignalExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && !ee.Exited()
}
