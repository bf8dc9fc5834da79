package server

// Classes outside the workspace in the editor (jars, the JDK): hover,
// completion and definition, through the classpath the session resolves
// per project (package session).

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/classpath"
)

// externalMethod finds the method a resolved target names outside the
// workspace (a jar's, the JDK's): the chosen overload, or ok false with the
// candidates when the target does not tell which.
func (s *server) externalMethod(doc *document, f *workspace.Formula, ix *workspace.Index, t workspace.Target) (m workspace.ExternalMember, cands []workspace.ExternalMember, ok bool) {
	ext := s.sess.ExternalFor(doc.Path)
	if ext == nil || t.Class == "" || t.Revision != "" {
		return m, nil, false
	}
	var scope *javasrc.Type
	if f.Method != nil {
		scope = f.Method.Type
	}
	cls := ix.ClassName(f.File, scope, t.Class, ext)
	_, ms, _ := workspace.ExternalMembers(ext, cls, t.Method)
	m, ok = workspace.PickExternal(ms, t.Params)
	return m, ms, ok
}

// externalSource finds m's declaration in its class's source (a
// -sources.jar beside the jar, the JDK's src.zip): the parsed file and the
// method; nil when there is none.
func (s *server) externalSource(m workspace.ExternalMember) (*javasrc.File, *javasrc.Method) {
	c := m.Class
	if c.SourceArchive == "" {
		return nil, nil
	}
	f := s.sess.Source(c.SourceArchive, c.SourceEntry)
	if f == nil {
		return nil, nil
	}
	return f, workspace.MethodIn(f, c.Name, m.Method.Name, m.Method.Params)
}

// externalHover documents a method outside the workspace: its declaration,
// the class and the jar (or JDK) it comes from, and its source line when
// the sources are at hand.
func (s *server) externalHover(doc *document, f *workspace.Formula, ix *workspace.Index, t workspace.Target) string {
	m, cands, ok := s.externalMethod(doc, f, ix, t)
	if !ok {
		if len(cands) == 0 {
			return ""
		}
		var b strings.Builder
		b.WriteString("\noverloads:\n\n")
		for _, c := range cands {
			fmt.Fprintf(&b, "- `%s`\n", c.Signature())
		}
		return b.String()
	}
	var b strings.Builder
	file, decl := s.externalSource(m)
	text := externalDeclText(m.Method)
	if decl != nil {
		text = declText(decl)
	}
	fmt.Fprintf(&b, "\n```java\n%s\n```\n\ndeclared in `%s`", text, strings.ReplaceAll(m.Class.Name, "$", "."))
	if o := m.Class.Origin; o != "" {
		// The JDK's class data (package jdk) lies in its lib directory.
		jdkData := filepath.Base(filepath.Dir(o)) == "lib" && slices.Contains([]string{"ct.sym", "modules", "rt.jar"}, filepath.Base(o))
		if (o == m.Class.SourceArchive && strings.HasSuffix(o, "src.zip")) || jdkData {
			b.WriteString(" (the JDK)")
		} else {
			fmt.Fprintf(&b, " from `%s`", filepath.Base(o))
		}
	}
	b.WriteString("\n")
	if decl != nil {
		line := file.Mapper.Range(decl.NameSpan).Start.Line + 1
		fmt.Fprintf(&b, "\n%s:%d (%s)\n", m.Class.SourceEntry, line, filepath.Base(m.Class.SourceArchive))
	}
	return b.String()
}

// externalDeclText renders a class file's method like declText:
// "static Builder create()", parameter names when the class file has them.
func externalDeclText(m workspace.ExternalMethod) string {
	var b strings.Builder
	if m.Static {
		b.WriteString("static ")
	}
	if m.Return != "" {
		b.WriteString(m.Return + " ")
	}
	b.WriteString(m.Name + "(")
	for i, p := range m.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		if m.Varargs && i == len(m.Params)-1 {
			p = strings.TrimSuffix(p, "[]") + "..."
		}
		b.WriteString(p)
		if i < len(m.ParamNames) && m.ParamNames[i] != "" {
			b.WriteString(" " + m.ParamNames[i])
		}
	}
	b.WriteString(")")
	return b.String()
}

// externalLocation is where go-to-definition goes for a method outside the
// workspace: its source file extracted (read-only) into the cache
// directory. ok is false without sources or a cache directory: no place is
// invented.
func (s *server) externalLocation(doc *document, f *workspace.Formula, ix *workspace.Index, t workspace.Target) (protocol.Location, bool) {
	m, _, ok := s.externalMethod(doc, f, ix, t)
	if !ok {
		return protocol.Location{}, false
	}
	file, decl := s.externalSource(m)
	if decl == nil {
		return protocol.Location{}, false
	}
	p, err := classpath.ExtractSource(s.opts.CacheDir, m.Class.SourceArchive, m.Class.SourceEntry)
	if err != nil {
		s.logf("definition of %s: %v", t, err)
		return protocol.Location{}, false
	}
	return protocol.Location{URI: uri.File(p), Range: toProtocolRange(file.Mapper.Range(decl.NameSpan))}, true
}
