package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// redactCases are connection strings in the forms pgx reads, each with the
// password pgx reads from it ("" when pgx reads none or rejects it) and
// the texts that must not be shown.
var redactCases = []struct {
	name, spec, want string
	pgxPassword      string   // what pgx's parser takes for the password; "-" when pgx rejects spec
	hidden           []string // never in the shown address
}{
	{"url", "postgres://alice:s3cret@db.example:5432/perfls?sslmode=require",
		"postgres://alice:xxxxx@db.example:5432/perfls?sslmode=require", "s3cret", []string{"s3cret"}},
	{"url query password", "postgresql://alice@db.example/perfls?password=s3cret&sslmode=require",
		"postgresql://alice@db.example/perfls?password=xxxxx&sslmode=require", "s3cret", []string{"s3cret"}},
	{"url both", "postgres://alice:s3cret1@db.example/perfls?sslmode=disable&password=s3cret2",
		"postgres://alice:xxxxx@db.example/perfls?sslmode=disable&password=xxxxx", "s3cret2", []string{"s3cret1", "s3cret2"}},
	{"url sslpassword", "postgres://alice@db.example/perfls?sslpassword=s3cret&sslkey=/k.pem",
		"postgres://alice@db.example/perfls?sslpassword=xxxxx&sslkey=/k.pem", "-", []string{"s3cret"}},
	{"url encoded key", "postgres://db.example/perfls?pass%77ord=s3cret",
		"postgres://db.example/perfls?pass%77ord=xxxxx", "s3cret", []string{"s3cret"}},
	{"url uppercase scheme", "POSTGRES://alice:s3cret@db.example/perfls",
		"POSTGRES://alice:xxxxx@db.example/perfls", "-", []string{"s3cret"}},
	{"url encoded password", "postgres://alice:s3%40cr%2Fet%20x@db.example/perfls",
		"postgres://alice:xxxxx@db.example/perfls", "s3@cr/et x", []string{"s3%40cr", "s3@cr", "cr%2Fet", "cr/et"}},
	{"url @ in password", "postgres://alice:s3@cret@db.example/perfls",
		"postgres://…", "-", []string{"s3", "cret", "alice"}},
	{"url / in password", "postgres://alice:s3/cret@db.example/perfls",
		"postgres://…", "-", []string{"s3", "cret"}},
	{"url ? in password", "postgres://alice:s3?cret@db.example/perfls",
		"postgres://alice:xxxxx@db.example/perfls", "s3?cret", []string{"s3", "cret"}},
	{"url & in query password", "postgres://db.example/perfls?password=s3&cret&sslmode=disable",
		"postgres://db.example/perfls?password=xxxxx&xxxxx&sslmode=disable", "-", []string{"s3", "cret"}},
	{"url password in the port", "postgres://alice:s3cret/perfls",
		"postgres://alice:xxxxx/perfls", "-", []string{"s3cret"}},
	{"url hosts", "postgres://alice:s3cret@h1:5432,[::1]:5433,h3/perfls",
		"postgres://alice:xxxxx@h1:5432,[::1]:5433,h3/perfls", "s3cret", []string{"s3cret"}},
	{"url password equal to other fields", "postgres://perf:perf@perf/perf?application_name=perf&password=perf",
		"postgres://perf:xxxxx@perf/perf?application_name=perf&password=xxxxx", "perf", nil},
	{"url unknown setting", "postgres://db.example/perfls?s3cret=yes",
		"postgres://db.example/perfls?xxxxx=xxxxx", "", []string{"s3cret", "yes"}},
	{"url socket directory", "postgres://alice:s3cret@/perfls?host=%2Ftmp%2Fpg&sslmode=disable",
		"postgres://alice:xxxxx@/perfls?host=%2Ftmp%2Fpg&sslmode=disable", "s3cret", []string{"s3cret"}},
	{"other scheme", "mysql://alice:s3cret@db.example/perfls", "mysql://alice:xxxxx@db.example/perfls", "-", []string{"s3cret"}},
	{"git over https", "https://bot:t0ken@git.example/team/app.git", "https://bot:xxxxx@git.example/team/app.git", "-", []string{"t0ken"}},

	{"key=value", "host=/tmp/x port=5432 user=u password=s3cret dbname=d",
		"host=/tmp/x port=5432 user=u password=xxxxx dbname=d", "s3cret", []string{"s3cret"}},
	{"key=value quoted", `host=h password='s3 cr\'et \\ x' dbname=d`,
		"host=h password=xxxxx dbname=d", `s3 cr'et \ x`, []string{"s3", "cr'et", `cr\'et`}},
	{"key=value spaces around =", "host = h   password =  s3cret\tdbname= d",
		"host=h password=xxxxx dbname=d", "s3cret", []string{"s3cret"}},
	{"key=value password last", "host=h dbname=d password=s3cret",
		"host=h dbname=d password=xxxxx", "s3cret", []string{"s3cret"}},
	{"key=value password last quoted", "host=h dbname=d password='s3 cret'",
		"host=h dbname=d password=xxxxx", "s3 cret", []string{"s3", "cret"}},
	{"key=value escaped space", `password=s3\ cret host=h`, "password=xxxxx host=h", "s3 cret", []string{"s3", "cret"}},
	{"key=value sslpassword", "host=h sslpassword=s3cret sslkey=/k.pem",
		"host=h sslpassword=xxxxx sslkey=/k.pem", "-", []string{"s3cret"}},
	{"key=value empty password", "host=h password=", "host=h password=xxxxx", "", nil},
	{"key=value quoted setting", "host=h application_name='my app' password=s3cret",
		"host=h application_name='my app' password=xxxxx", "s3cret", []string{"s3cret"}},
	{"key=value unquoted value with a space", "host=h password=s3 cret=x",
		"host=h password=xxxxx xxxxx=xxxxx", "s3", []string{"s3", "cret"}},
	{"key=value password equal to another field", "user=perf password=perf dbname=perf",
		"user=perf password=xxxxx dbname=perf", "perf", nil},
	{"key=value unterminated quote", "host=h password='s3cret dbname=d",
		"(address not shown: it does not parse, and may hold a password)", "-", []string{"s3cret"}},
	{"key=value without =", "host=h password s3cret",
		"(address not shown: it does not parse, and may hold a password)", "-", []string{"s3cret"}},
	{"user:password@host without scheme", "alice:s3cret@db.example/perfls",
		"(address not shown: it does not parse, and may hold a password)", "-", []string{"s3cret"}},

	{"empty", "", "", "", nil},
	{"path", "/var/lib/perfls", "/var/lib/perfls", "-", nil},
	{"git scp form", "git@git.example:team/app.git", "git@git.example:team/app.git", "-", nil},
}

// Address shows each form without its password, and takes for the password
// what pgx takes.
func TestRedactForms(t *testing.T) {
	for _, c := range redactCases {
		got := Address(c.spec)
		if got != c.want {
			t.Errorf("%s: Address(%q) = %q, want %q", c.name, c.spec, got, c.want)
		}
		for _, h := range c.hidden {
			if strings.Contains(got, h) {
				t.Errorf("%s: Address(%q) = %q shows %q", c.name, c.spec, got, h)
			}
		}
		if c.pgxPassword == "-" || c.spec == "" {
			continue
		}
		cfg, err := pgconn.ParseConfig(c.spec)
		if err != nil {
			t.Errorf("%s: pgx rejects %q: %v", c.name, c.spec, err)
		} else if cfg.Password != c.pgxPassword {
			t.Errorf("%s: pgx reads password %q, the case says %q", c.name, cfg.Password, c.pgxPassword)
		}
	}
}

// An error that quotes an address, or pgx's reading of it, loses its
// secrets and keeps what it wraps; so do pgx's own parse errors, which
// redact only some forms.
func TestRedactError(t *testing.T) {
	for _, c := range redactCases {
		inner := fmt.Errorf("wrapped: %w", fs.ErrNotExist)
		msg := "cannot use `" + c.spec + "`"
		if c.pgxPassword != "-" && c.pgxPassword != "" {
			msg += " (password " + c.pgxPassword + ")"
		}
		err := Error(c.spec, fmt.Errorf("%s: %w", msg, inner))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v no longer wraps fs.ErrNotExist", c.name, err)
		}
		for _, h := range c.hidden {
			if strings.Contains(err.Error(), h) {
				t.Errorf("%s: %q shows %q", c.name, err, h)
			}
		}
		if _, perr := pgconn.ParseConfig(c.spec); perr != nil {
			err := Error(c.spec, perr)
			for _, h := range c.hidden {
				if strings.Contains(err.Error(), h) {
					t.Errorf("%s: pgx's error %q shows %q", c.name, err, h)
				}
			}
		}
	}
	if err := Error("postgres://alice:s3cret@h/db", nil); err != nil {
		t.Errorf("nil error: %v", err)
	}
	plain := errors.New("connection refused")
	if err := Error("postgres://alice:s3cret@h/db", plain); err != plain {
		t.Errorf("an error without secrets changed: %v", err)
	}
	// A password equal to the user's name hides the name in errors too.
	if err := Error("user=perf password=perf", errors.New("failed to connect to `user=perf`")); err.Error() != "failed to connect to `user=xxxxx`" {
		t.Errorf("got %q", err)
	}
}
