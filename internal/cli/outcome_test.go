package cli

import (
	"errors"
	"testing"
)

func TestWorse(t *testing.T) {
	usage, failed, na := ExitStatus(ExitUsage), ExitStatus(ExitFailed), ExitStatus(3)
	other := errors.New("broken")
	for _, c := range []struct{ a, b, want error }{
		{nil, nil, nil},
		{nil, na, na},
		{na, failed, failed},
		{failed, na, failed},
		{failed, usage, usage},
		{other, failed, other},
	} {
		if got := Worse(c.a, c.b); got != c.want {
			t.Errorf("Worse(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestNumbered(t *testing.T) {
	for _, c := range []struct {
		path string
		n    int
		want string
	}{
		{"prof.pb.gz", 1, "prof.pb.gz"},
		{"out/prof.pb.gz", 2, "out/prof-2.pb.gz"},
		{"prof", 3, "prof-3"},
		{"", 2, ""},
	} {
		if got := Numbered(c.path, c.n); got != c.want {
			t.Errorf("Numbered(%q, %d) = %q, want %q", c.path, c.n, got, c.want)
		}
	}
}
