package version

import "testing"

func TestString(t *testing.T) {
	cases := []struct {
		in   Info
		want string
	}{
		{Info{Module: "v0.2.0", Revision: "0123456789abcdef0123"}, "v0.2.0 0123456789ab"},
		{Info{Module: "(devel)", Revision: "abc", Modified: true}, "(devel) abc+dirty"},
		{Info{Module: "(devel)"}, "(devel) unknown commit"},
	}
	for _, c := range cases {
		if got := c.in.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.in, got, c.want)
		}
	}
	if in := Read(); in.Module == "" || in.Go == "" {
		t.Errorf("Read: %+v", in)
	}
}

// A release build's -X values win over what the build information says
// (a build from an exported tree has no VCS settings; go install @v has
// the module version and no commit).
func TestStamped(t *testing.T) {
	dev := Info{Module: "(devel)", Revision: "abc", Modified: true}
	if got := dev.stamped("v0.2.0", "0123456789abcdef").String(); got != "v0.2.0 0123456789ab" {
		t.Errorf("release stamp: %q", got)
	}
	if got := dev.stamped("", ""); got != dev {
		t.Errorf("no stamp changed %+v to %+v", dev, got)
	}
	if got := (Info{Module: "v0.3.0"}).stamped("", "fedcba9876543210").String(); got != "v0.3.0 fedcba987654" {
		t.Errorf("commit only: %q", got)
	}
}
