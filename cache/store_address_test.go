package cache

import (
	"context"
	"strings"
	"testing"
)

func TestIsPostgresURL(t *testing.T) {
	for spec, want := range map[string]bool{
		"postgres://h/db":           true,
		"postgresql://h/db":         true,
		"host=h dbname=d":           true,
		"host = h password='a b'":   true,
		"":                          false,
		"/var/lib/perfls":           false,
		"mysql://h/db":              false,
		"host=h password='unclosed": false,
		"/tmp/a=b":                  false,
	} {
		if got := IsPostgresURL(spec); got != want {
			t.Errorf("IsPostgresURL(%q) = %v, want %v", spec, got, want)
		}
	}
}

// A key=value store that does not answer, and one that does not parse:
// the errors name the store without the password.
func TestOpenKeyValueErrors(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range []string{
		"host=" + dir + " user=alice password='s3cret pw' dbname=perfls connect_timeout=2",
		"host=" + dir + " user=alice dbname=perfls password=s3cret",
		"host=" + dir + " password='s3cret",
	} {
		_, _, err := Open(context.Background(), spec, t.TempDir())
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q): %v", spec, err)
		}
	}
}
