package workspace

import (
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
)

// Suggestions for the editor's quick fixes, with the rules lint's own
// "did you mean" follows.

// Similar returns the candidates close enough to name to be a typo of it
// (case-insensitive edit distance within a third of its length), sorted
// and without repeats; none for names shorter than 3.
func Similar(name string, candidates []string) []string {
	var out []string
	for _, n := range candidates {
		if n != "<init>" && n != name && len(name) >= 3 && editDistance(strings.ToLower(n), strings.ToLower(name)) <= max(1, (len(name)+2)/3) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return compactStrings(out)
}

// SimilarMethods returns the names of class cls's methods (a binary or
// qualified name, in the workspace or known to ext, which may be nil) that
// are close to name.
func (ix *Index) SimilarMethods(cls, name string, ext External) []string {
	var names []string
	if t := ix.Type(cls); t != nil {
		for _, m := range ix.methodsOf(t) {
			names = append(names, m.Name)
		}
	} else if ext != nil && ext.Covers(cls) {
		if ec, err := ext.Class(cls); err == nil && ec != nil {
			for _, m := range ec.Methods {
				names = append(names, m.Name)
			}
		}
	}
	return Similar(name, names)
}

// ArgKind is the kind of a term's argument in formula p: a literal's, or
// that of all the values of its variable; false when they mix or it has
// none (arithmetic).
func ArgKind(p *spl.Formula, a spl.Arg) (spl.ValueKind, bool) {
	c := checker{f: &Formula{Parsed: p}}
	return c.argKind(a)
}

// ArgFits tells whether a value of kind can be passed to a parameter of the
// erased type typ, as lint checks generator arguments.
func ArgFits(kind spl.ValueKind, typ string) bool { return fits(kind, typ) }

// ClassOf resolves a class as written in formula f to a binary name, through
// the workspace and then ext (nil: the workspace only).
func (ix *Index) ClassOf(f *Formula, written string, ext External) string {
	c := checker{ix: ix, f: f, opt: LintOptions{External: ext}}
	return c.className(written)
}

// FindAlias returns the alias of as named name, or nil.
func FindAlias(as []*spl.Alias, name string) *spl.Alias { return findAlias(as, name) }

// IsWorkloadLoop tells a workload loop, void w(SPLController spl, …): it
// runs its own workload, so a term names it without brackets.
func IsWorkloadLoop(m *javasrc.Method) bool { return isLoop(m) }
