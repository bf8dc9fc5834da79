package spl

import (
	"slices"
	"testing"
)

func TestCompletionSite(t *testing.T) {
	cases := []struct {
		before string
		want   Site
	}{
		{"", Site{Kind: SiteTerm}},
		{"for n in {1} SE", Site{Kind: SiteTerm, Word: "SE"}},
		{"SELF[g", Site{Kind: SiteGenerator, Word: "g", Generator: true}},
		{"SELF[g](n) <= demo.Demo#sl", Site{Kind: SiteMember, Word: "sl", Qualifier: "demo.Demo"}},
		{"SELF[demo.Gen#", Site{Kind: SiteMember, Qualifier: "demo.Gen", Generator: true}},
		{"SELF <= java.util.", Site{Kind: SiteDotted, Qualifier: "java.util"}},
		{"SELF[a](1) <= x[b](2) + café.Ré", Site{Kind: SiteDotted, Word: "Ré", Qualifier: "café"}},
		{"SELF[w](n) <= m[w](n", Site{Kind: SiteTerm, Word: "n"}},
	}
	for _, c := range cases {
		if got := CompletionSite(c.before); got != c.want {
			t.Errorf("%q: %+v, want %+v", c.before, got, c.want)
		}
	}
}

func TestDeclaredAliasesAndVariables(t *testing.T) {
	text := "w := demo.Gen#data\nm := x.Y#z for n in {1, 2} for n in {3} i{1,2} SELF[w](n) <= m[w](n"
	if got := DeclaredAliases(text); !slices.Equal(got, []string{"w", "m"}) {
		t.Errorf("aliases %q", got)
	}
	if got := QuantifiedVariables(text); !slices.Equal(got, []string{"n", "i"}) {
		t.Errorf("variables %q", got)
	}
}
