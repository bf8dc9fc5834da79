package server

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/server/internal/session"
)

// formulaString is the @SPL string under the cursor.
type formulaString struct {
	method   *javasrc.Method
	value    *javasrc.StringValue
	index    int                  // byte index into value.Text of the cursor
	formulas []*workspace.Formula // parsed from value; empty when it is broken
}

// stringAt finds the @SPL string (a formula or an alias element) of a
// Java document that holds the document offset off.
func stringAt(doc *document, off int) *formulaString {
	if doc.Java == nil {
		return nil
	}
	// Formula strings belong to a method's annotations; methods nest
	// (anonymous classes), so every method containing off is a candidate.
	for _, m := range doc.Java.Methods {
		if m.Span.Start > off || off > m.Span.End {
			continue
		}
		for _, ann := range m.SPL {
			for _, group := range [][]*javasrc.StringValue{ann.Formulas, ann.MethodAliases, ann.GeneratorAliases} {
				for _, v := range group {
					if v.Span.Start <= off && off <= v.Span.End {
						fs := &formulaString{method: m, value: v, index: textIndex(v, off)}
						for _, f := range doc.Formulas {
							if f.Value == v {
								fs.formulas = append(fs.formulas, f)
							}
						}
						return fs
					}
				}
			}
		}
	}
	return nil
}

// textIndex maps a document offset inside v to a byte index of v.Text: the
// last text byte that starts at or before off.
func textIndex(v *javasrc.StringValue, off int) int {
	best := 0
	for i := 0; i <= len(v.Text); i++ {
		d := v.DocOffset(i)
		if d == off {
			return i
		}
		if d < off {
			best = i
			if i < len(v.Text) && v.DocOffset(i+1) > off {
				return i + 1 // the cursor sits inside an escape: after it
			}
		}
	}
	return best
}

// refAt finds the formula reference under a position: in an @SPL string
// of a Java document, or in a .spl file. rng is the reference's range.
func refAt(doc *document, pos protocol.Position) (f *workspace.Formula, r *workspace.Ref, rng protocol.Range) {
	if doc == nil {
		return nil, nil, rng
	}
	at := textpos.Position{Line: int(pos.Line), Character: int(pos.Character)}
	if doc.SPL != nil {
		off := doc.SPL.Offset(at)
		for _, f := range doc.Formulas {
			if r := workspace.RefAt(f, doc.SPL.Text(), off); r != nil {
				return f, r, toProtocolRange(doc.SPL.Range(textpos.Span{Start: r.Span.Start, End: r.Span.End}))
			}
		}
		return nil, nil, rng
	}
	if doc.Java == nil {
		return nil, nil, rng
	}
	fs := stringAt(doc, doc.Java.Mapper.Offset(at))
	if fs == nil {
		return nil, nil, rng
	}
	for _, f := range fs.formulas {
		if r := workspace.RefAt(f, fs.value.Text, fs.index); r != nil {
			sp := fs.value.DocSpan(textpos.Span{Start: r.Span.Start, End: r.Span.End})
			return f, r, toProtocolRange(doc.Java.Mapper.Range(sp))
		}
	}
	return nil, nil, rng
}

// declaration is where a resolved method is declared.
type declaration struct {
	path string
	rng  textpos.Range
	text string // e.g. "static int slow(int[] a)"
	// method is the declaration with its documentation (the index's copy
	// may hold the signature only).
	method *javasrc.Method
}

// locate finds the declaration of m through the index: in an open
// document, or in its file on disk.
func (s *server) locate(ix *workspace.Index, m *javasrc.Method) (declaration, bool) {
	if m == nil || m.Type == nil {
		return declaration{}, false
	}
	f := ix.FileOf(m.Type)
	if f == nil {
		return declaration{}, false
	}
	if f.Mapper == nil {
		// Declarations only (the persisted index): find the method in
		// the file on disk.
		disk := s.sess.DiskFile(f.Path)
		if disk == nil {
			return declaration{}, false
		}
		var found *javasrc.Method
		for _, dm := range disk.Methods {
			if dm.Type != nil && dm.Type.BinaryName == m.Type.BinaryName && dm.Signature() == m.Signature() {
				found = dm
				break
			}
		}
		if found == nil {
			return declaration{}, false
		}
		f, m = disk, found
	}
	return declaration{path: f.Path, rng: f.Mapper.Range(m.NameSpan), text: declText(m), method: m}, true
}

// declText renders a method's declaration: "static int slow(int[] a)".
func declText(m *javasrc.Method) string {
	var b strings.Builder
	if m.Static {
		b.WriteString("static ")
	}
	if m.ReturnType != "" {
		b.WriteString(m.ReturnType + " ")
	}
	name := m.Name
	if m.IsConstructor && m.Type != nil {
		name = m.Type.Name
	}
	b.WriteString(name + "(")
	for i, p := range m.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strings.TrimSpace(p.Type + " " + p.Name))
	}
	b.WriteString(")")
	return b.String()
}

// relPath shows path relative to the workspace root when inside it.
func (s *server) relPath(path string) string {
	if root := s.root(path); root != "" {
		if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return path
}

// Definition jumps from a method, generator or alias reference in a
// formula to the Java declaration it resolves to.
func (s *server) Definition(_ context.Context, p *protocol.DefinitionParams) ([]protocol.Location, error) {
	snap := s.sess.Snapshot(p.TextDocument.URI)
	doc := snap.Doc
	f, r, _ := refAt(doc, p.Position)
	if r == nil || r.Kind == workspace.RefVariable {
		return []protocol.Location{}, nil
	}
	ix := snap.Overlay()
	t, err := ix.Resolve(f, r)
	if err != nil {
		return []protocol.Location{}, nil
	}
	if t.Decl == nil {
		if loc, ok := s.externalLocation(doc, f, ix, t); ok {
			return []protocol.Location{loc}, nil
		}
		return []protocol.Location{}, nil
	}
	d, ok := s.locate(ix, t.Decl)
	if !ok {
		return []protocol.Location{}, nil
	}
	return []protocol.Location{{URI: uri.File(d.path), Range: toProtocolRange(d.rng)}}, nil
}

// refHover documents what a formula reference resolves to.
func (s *server) refHover(snap session.Snapshot, f *workspace.Formula, r *workspace.Ref) string {
	doc := snap.Doc
	var b strings.Builder
	switch r.Kind {
	case workspace.RefVariable:
		fmt.Fprintf(&b, "**perfls** variable `%s`\n", r.Text)
		for _, q := range f.Parsed.Quantifiers {
			for k, v := range q.Vars {
				if v.Name != r.Text {
					continue
				}
				var vals []string
				if q.Zipped {
					for _, tuple := range q.Values {
						if k < len(tuple) {
							vals = append(vals, tuple[k].String())
						}
					}
				} else if k < len(q.Values) {
					for _, val := range q.Values[k] {
						vals = append(vals, val.String())
					}
				}
				fmt.Fprintf(&b, "\nvalues: `{%s}`\n", strings.Join(vals, ", "))
			}
		}
		return b.String()
	case workspace.RefGenerator:
		fmt.Fprintf(&b, "**perfls** generator `%s`\n\n", r.Text)
	default:
		fmt.Fprintf(&b, "**perfls** method `%s`\n\n", r.Text)
	}
	if r.Alias != nil {
		fmt.Fprintf(&b, "alias `%s`", r.Alias.Name)
		if r.Alias.Method != nil {
			fmt.Fprintf(&b, " := `%s`", r.Alias.Method)
		} else if r.Alias.Generator != nil {
			fmt.Fprintf(&b, " := `%s`", r.Alias.Generator)
		}
		b.WriteString("\n\n")
	}
	ix := snap.Overlay()
	t, err := ix.Resolve(f, r)
	if err != nil {
		fmt.Fprintf(&b, "Does not resolve: %v\n", err)
		return b.String()
	}
	fmt.Fprintf(&b, "resolves to `%s`\n", t)
	if t.Decl == nil {
		if ext := s.externalHover(doc, f, ix, t); ext != "" {
			b.WriteString(ext)
			return b.String()
		}
		b.WriteString("\nnot declared in the workspace (resolved by the JVM when measured)\n")
		return b.String()
	}
	decl := t.Decl
	if d, ok := s.locate(ix, t.Decl); ok {
		fmt.Fprintf(&b, "\n```java\n%s\n```\n\n%s:%d\n", d.text, s.relPath(d.path), d.rng.Start.Line+1)
		decl = d.method
	} else {
		fmt.Fprintf(&b, "\n```java\n%s\n```\n", declText(t.Decl))
	}
	if g := decl.Generator; g != nil && g.Description != nil && g.Description.Text != "" {
		fmt.Fprintf(&b, "\n%s\n", g.Description.Text)
	}
	return b.String()
}
