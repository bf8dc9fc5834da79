package editor

import (
	"strings"
	"sync"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
)

// Revisions is what the editor knows of a repository's refs
// (measure/revision.Refs): whether a revision may name a commit, and the
// branches and tags a formula can write.
type Revisions interface {
	Knows(rev string) bool
	Names() []string
}

// RevisionFixes repairs a revision git does not know (UnknownRevisions
// finds it as the user types, a check reports it): the tags and branches
// in known close to it (to its base in a relative name: mian~2 →
// main~2), each written in place of "@unknown" in the string that holds
// the diagnostic's span.
func (w Workspace) RevisionFixes(d workspace.Diagnostic, unknown string, known []string) []Fix {
	f := w.File(d.Path)
	if f == nil {
		return nil
	}
	s, ts, ok := stringAt(f, d.Span)
	if !ok {
		return nil
	}
	hs := spl.Highlights(s.v.Text)
	var at []spl.Span
	for _, h := range hs {
		if h.Kind == spl.HlRevision && s.v.Text[h.Span.Start:h.Span.End] == "@"+unknown {
			if h.Span.Start <= ts.Start && ts.End <= h.Span.End || h.Span.Start >= ts.Start && h.Span.End <= ts.End {
				at = append(at, h.Span)
			}
		}
	}
	return revisionFixes(s, at, unknown, nearestRevisions(revisionBase(unknown), known))
}

// revisionFixes writes each of names, with unknown's relative suffix
// (~2, ^), in place of the "@unknown" at each span of s's string.
func revisionFixes(s splString, at []spl.Span, unknown string, names []string) []Fix {
	if len(at) == 0 {
		return nil
	}
	suffix := unknown[len(revisionBase(unknown)):]
	var out []Fix
	for _, n := range names {
		fx := Fix{Title: "Change to @" + n + suffix, Preferred: len(names) == 1}
		for _, sp := range at {
			fx.Edits = append(fx.Edits, s.edit(sp, "@"+n+suffix))
		}
		out = append(out, fx)
	}
	return out
}

// revisionBase is a relative name's base (main of main~2): what git did
// not find when the name is unknown.
func revisionBase(rev string) string {
	if i := strings.IndexAny(rev, "~^"); i > 0 {
		return rev[:i]
	}
	return rev
}

// nearestRevisions are the names in known that differ from rev only in
// case, or else are a typo of it; at most three.
func nearestRevisions(rev string, known []string) []string {
	var out []string
	for _, k := range known {
		if strings.EqualFold(k, rev) && k != rev {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		out = workspace.Similar(rev, known)
	}
	return out[:min(len(out), 3)]
}

// UnknownRevisions finds the "@rev" of f's formula and alias strings that
// revs knows no ref for (a check would fail them: "unknown revision"), each
// a warning on the "@rev" text with the fixes RevisionFixes gives. A
// revision of another project (lib@v2:…) belongs to that project's
// repository and is left alone.
func UnknownRevisions(f *javasrc.File, revs Revisions) []Problem {
	return NewRevisionMemo(revs).Problems(f)
}

// RevisionMemo is UnknownRevisions against one ref list, remembering what
// it found in each annotation string and the names close to each unknown
// revision: the editor asks on every change, and a change leaves all but
// one string as they were. Safe for concurrent use.
type RevisionMemo struct {
	revs Revisions

	mu     sync.Mutex
	names  []string              // revs.Names(), once needed
	byText map[string][]spl.Span // string kind and text → its unknown "@rev" spans
	near   map[string][]string   // unknown revision base → the close names
}

// memoLimit bounds the strings a memo remembers: typing a revision makes
// a new string at each key.
const memoLimit = 4096

// NewRevisionMemo is a memo of revs's unknown revisions.
func NewRevisionMemo(revs Revisions) *RevisionMemo {
	return &RevisionMemo{revs: revs, byText: map[string][]spl.Span{}, near: map[string][]string{}}
}

// Problems are UnknownRevisions(f, m's refs).
func (m *RevisionMemo) Problems(f *javasrc.File) []Problem {
	var out []Problem
	eachString(f, func(host *javasrc.Method, ann *javasrc.SPLAnnotation, v *javasrc.StringValue, what int) bool {
		if what == strWorkload || strings.IndexByte(v.Text, '@') < 0 {
			return true // most strings name no revision
		}
		s := splString{file: f, host: host, ann: ann, v: v, what: what}
		for _, sp := range m.unknownIn(what, v.Text) {
			rev := v.Text[sp.Start+1 : sp.End]
			loc := location(f, v.DocSpan(textpos.Span{Start: sp.Start, End: sp.End}))
			out = append(out, unknownRevisionProblem(loc, rev, revisionFixes(s, []spl.Span{sp}, rev, m.nearest(revisionBase(rev)))))
		}
		return true
	})
	return out
}

// ProblemsInSPL are the unknown revisions of a .spl file (its whole text
// is formulas and aliases), with fixes that rewrite them in place.
func (m *RevisionMemo) ProblemsInSPL(path string, text *textpos.Mapper) []Problem {
	var out []Problem
	src := text.Text()
	if strings.IndexByte(src, '@') < 0 {
		return nil
	}
	for _, sp := range m.unknownIn(strFormula, src) {
		rev := src[sp.Start+1 : sp.End]
		span := textpos.Span{Start: sp.Start, End: sp.End}
		loc := Location{Path: path, Range: text.Range(span), Span: span}
		suffix := rev[len(revisionBase(rev)):]
		names := m.nearest(revisionBase(rev))
		var fixes []Fix
		for _, n := range names {
			fixes = append(fixes, Fix{Title: "Change to @" + n + suffix, Preferred: len(names) == 1,
				Edits: []TextEdit{{Location: loc, NewText: "@" + n + suffix}}})
		}
		out = append(out, unknownRevisionProblem(loc, rev, fixes))
	}
	return out
}

// unknownRevisionProblem is the warning on loc, naming the fixes' names.
func unknownRevisionProblem(loc Location, rev string, fixes []Fix) Problem {
	what := "revision @" + rev
	if base := revisionBase(rev); base != rev {
		what += ": " + base
	}
	d := workspace.Diagnostic{Path: loc.Path, Range: loc.Range, Span: loc.Span, Severity: workspace.Warning, Code: CodeUnknownRevision,
		Message: what + " names no tag, branch or commit of this repository: a check would fail it"}
	if len(fixes) > 0 {
		var alts []string
		for _, fx := range fixes {
			alts = append(alts, strings.TrimPrefix(fx.Title, "Change to "))
		}
		d.Message += "; did you mean " + strings.Join(alts, " or ") + "?"
	}
	return Problem{Diagnostic: d, Fixes: fixes}
}

// unknownIn are the "@rev" spans of a string of kind what whose revision
// the refs do not know.
func (m *RevisionMemo) unknownIn(what int, text string) []spl.Span {
	key := string(rune('0'+what)) + text
	m.mu.Lock()
	spans, ok := m.byText[key]
	m.mu.Unlock()
	if ok {
		return spans
	}
	seen := map[spl.Span]bool{}
	for _, e := range entities(what, text) {
		rev, project, sp := "", "", spl.Span{}
		switch {
		case e.method != nil:
			rev, project, sp = e.method.Revision, e.method.Project, e.method.RevisionSpan
		case e.gen != nil:
			rev, project, sp = e.gen.Revision, e.gen.Project, e.gen.RevisionSpan
		}
		if rev == "" || project != "" && project != "THIS" || seen[sp] || sp.End > len(text) || text[sp.Start:sp.End] != "@"+rev || m.revs.Knows(rev) {
			continue
		}
		seen[sp] = true
		spans = append(spans, sp)
	}
	m.mu.Lock()
	if len(m.byText) >= memoLimit {
		clear(m.byText)
	}
	m.byText[key] = spans
	m.mu.Unlock()
	return spans
}

// nearest are the branches and tags close to an unknown revision base.
func (m *RevisionMemo) nearest(base string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if names, ok := m.near[base]; ok {
		return names
	}
	if m.names == nil {
		m.names = m.revs.Names()
	}
	if len(m.near) >= memoLimit {
		clear(m.near)
	}
	names := nearestRevisions(base, m.names)
	m.near[base] = names
	return names
}
