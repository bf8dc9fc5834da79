package spl

import "testing"

// Revisions of both dialects keep where their "@rev" text is, and relative
// names (HEAD~2, main^) are one revision.
func TestRevisionSpans(t *testing.T) {
	for _, tc := range []struct{ src, rev, at string }{
		{`SELF[w](1) <= SELF@HEAD~2[w](1)`, "HEAD~2", "@HEAD~2"},
		{`SELF[w](1) <= pkg.C#m@v1.0[w](1)`, "v1.0", "@v1.0"},
		{`SELF[w](1) <= pkg.C.m@main^(int)[w](1)`, "main^", "@main^"},
		{`SELF[w](1) <= @6a49ef6:pkg.C#m[w](1)`, "6a49ef6", "@6a49ef6"},
		{`SELF[w](1) <= THIS@abc:pkg.C#m[w](1)`, "abc", "@abc"},
	} {
		c := onlyComparison(t, tc.src)
		m := c.Right.Method
		if m.Revision != tc.rev || tc.src[m.RevisionSpan.Start:m.RevisionSpan.End] != tc.at {
			t.Errorf("%s: revision %q at %v, want %q at %q", tc.src, m.Revision, m.RevisionSpan, tc.rev, tc.at)
		}
		if l := c.Left.Method; l.RevisionSpan != (Span{}) {
			t.Errorf("%s: SELF has a revision span %v", tc.src, l.RevisionSpan)
		}
	}
	c := onlyComparison(t, `SELF[@r1:pkg.Gen#g](1) <= SELF[w](1)`)
	if g := c.Left.Generator; g.Revision != "r1" || `SELF[@r1:pkg.Gen#g](1) <= SELF[w](1)`[g.RevisionSpan.Start:g.RevisionSpan.End] != "@r1" {
		t.Errorf("generator revision %q at %v", g.Revision, g.RevisionSpan)
	}
}
