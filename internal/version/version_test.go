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
