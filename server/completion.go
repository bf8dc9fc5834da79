package server

import (
	"context"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/server/internal/session"
)

// completionTriggers: the method separator, the generator bracket, the
// package dot, and identifier characters (editors do not complete inside
// strings on their own).
var completionTriggers = func() []string {
	t := []string{"#", "[", ".", "_", "$"}
	for c := 'a'; c <= 'z'; c++ {
		t = append(t, string(c), string(c-'a'+'A'))
	}
	return t
}()

// maxCompletions caps one answer; the list is then marked incomplete so the
// client asks again as the user types.
const maxCompletions = 200

// Completion offers, inside @SPL strings, the aliases, generators,
// variables and methods that may be written at the cursor: after "#" the
// methods of the class before it, after "." the packages, classes and
// methods below the name before it, inside "[…]" generators, elsewhere
// SELF, aliases, variables, the annotated class's methods and indexed
// methods as pkg.Class#method.
func (s *server) Completion(_ context.Context, p *protocol.CompletionParams) (*protocol.CompletionList, error) {
	empty := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	snap := s.sess.Snapshot(p.TextDocument.URI)
	doc := snap.Doc
	if doc == nil {
		return empty, nil
	}
	at := textpos.Position{Line: int(p.Position.Line), Character: int(p.Position.Character)}
	c := &completer{sess: s.sess, doc: doc, ix: snap.Overlay(), seen: map[string]bool{}}
	var text string // the formula text up to the cursor
	var site spl.Site
	switch {
	case doc.SPL != nil:
		// A .spl file: the text of its current line, which holds one item
		// (alias or formula start).
		off := doc.SPL.Offset(at)
		all := doc.SPL.Text()
		start := strings.LastIndexByte(all[:off], '\n') + 1
		end := strings.IndexByte(all[off:], '\n')
		if end < 0 {
			end = len(all) - off
		}
		text, c.scope = all[start:off], all[start:off+end]
		for _, f := range doc.Formulas {
			if f.Parsed != nil && f.Parsed.Span.Start <= off && off <= f.Parsed.Span.End {
				c.formulas = append(c.formulas, f)
			}
		}
		site = spl.CompletionSite(text)
		c.word = site.Word
		c.rng = toProtocolRange(doc.SPL.Range(textpos.Span{Start: off - len(c.word), End: off}))
	case doc.Java != nil:
		off := doc.Java.Mapper.Offset(at)
		fs := stringAt(doc, off)
		if fs == nil || off <= fs.value.Span.Start || off >= fs.value.Span.End {
			return empty, nil // outside the string (or on its quotes)
		}
		text, c.scope, c.method, c.file, c.formulas = fs.value.Text[:fs.index], fs.value.Text, fs.method, doc.Java, fs.formulas
		site = spl.CompletionSite(text)
		c.word = site.Word
		wordSpan := fs.value.DocSpan(textpos.Span{Start: fs.index - len(c.word), End: fs.index})
		c.rng = toProtocolRange(doc.Java.Mapper.Range(wordSpan))
	default:
		return empty, nil
	}
	switch site.Kind {
	case spl.SiteMember:
		c.members(site.Qualifier, site.Generator)
	case spl.SiteDotted:
		c.dotted(site.Qualifier, site.Generator)
	case spl.SiteGenerator:
		c.generators()
	default:
		c.terms()
	}
	sort.SliceStable(c.items, func(i, j int) bool { return c.items[i].SortText < c.items[j].SortText })
	return &protocol.CompletionList{IsIncomplete: c.incomplete, Items: c.items}, nil
}

type completer struct {
	sess       *session.Session // the classes outside the workspace
	doc        *document
	method     *javasrc.Method      // the annotated method; nil in .spl files
	file       *javasrc.File        // its file; nil in .spl files
	scope      string               // the text declaring what is visible: the string, or the .spl line
	formulas   []*workspace.Formula // parsed from scope
	ix         *workspace.Index
	word       string         // the identifier typed so far
	rng        protocol.Range // replaced by an item
	items      []protocol.CompletionItem
	seen       map[string]bool
	incomplete bool
}

// classType is the annotated method's type; nil in .spl files.
func (c *completer) classType() *javasrc.Type {
	if c.method == nil {
		return nil
	}
	return c.method.Type
}

// add offers label (inserted as is) unless it does not extend word.
func (c *completer) add(label string, kind protocol.CompletionItemKind, detail string, rank int) {
	if c.seen[label] || !strings.HasPrefix(strings.ToLower(label), strings.ToLower(c.word)) {
		return
	}
	if len(c.items) >= maxCompletions {
		c.incomplete = true
		return
	}
	c.seen[label] = true
	c.items = append(c.items, protocol.CompletionItem{
		Label: label, Kind: kind, Detail: detail,
		SortText: string(rune('a'+rank)) + label,
		TextEdit: &protocol.TextEdit{Range: c.rng, NewText: label},
	})
}

// members offers the methods of the class written before "#".
func (c *completer) members(class string, generator bool) {
	if class == "" {
		return
	}
	t := c.ix.ResolveClassIn(c.file, c.classType(), class)
	if t == nil {
		c.externalMethods(class)
		return
	}
	c.methodsOf(t, generator)
}

// externalMethods offers the methods of a class outside the workspace (a
// jar's, the JDK's) and of its supertypes but java.lang.Object.
func (c *completer) externalMethods(class string) {
	ext := c.sess.ExternalFor(c.doc.Path)
	if ext == nil {
		return
	}
	cls := c.ix.ClassName(c.file, c.classType(), class, ext)
	top, ms, _ := workspace.ExternalMembers(ext, cls, "")
	for _, m := range ms {
		if m.Class.Name == "java.lang.Object" && top.Name != "java.lang.Object" {
			continue
		}
		rank := 1
		if m.Class == top {
			rank = 0
		}
		c.add(m.Method.Name, protocol.CompletionItemKindMethod, externalDeclText(m.Method), rank)
	}
}

func (c *completer) methodsOf(t *javasrc.Type, generator bool) {
	for _, m := range c.ix.MethodsOf(t) {
		if m.IsConstructor || m.Name == "" {
			continue
		}
		rank := 1
		if workspace.IsGenerator(m) == generator {
			rank = 0
		}
		c.add(m.Name, protocol.CompletionItemKindMethod, declText(m), rank)
	}
}

// dotted offers what follows "name.": the methods of a class (thesis
// pkg.Class.method), else the next segment of packages and classes.
func (c *completer) dotted(qual string, generator bool) {
	if qual == "" {
		return
	}
	if t := c.ix.ResolveClassIn(c.file, c.classType(), qual); t != nil {
		c.methodsOf(t, generator)
	} else {
		c.externalMethods(qual)
	}
	c.segments(qual + ".")
}

// segments offers the next name segment of the types below prefix: the
// workspace's, the JDK's and the classpath's.
func (c *completer) segments(prefix string) {
	names := c.ix.TypesWithPrefix(prefix, 0)
	if en, ok := c.sess.ExternalFor(c.doc.Path).(workspace.ExternalNames); ok {
		names = append(names, en.ClassesWithPrefix(prefix, 0)...)
	}
	for _, name := range names {
		seg := name[len(prefix):]
		kind := protocol.CompletionItemKindClass
		if i := strings.Index(seg, "."); i >= 0 {
			seg, kind = seg[:i], protocol.CompletionItemKindModule
		}
		c.add(seg, kind, prefix+seg, 0)
	}
}

// generators offers generator aliases and generator methods of the
// annotated class.
func (c *completer) generators() {
	for _, a := range c.aliases() {
		c.add(a.Name, protocol.CompletionItemKindVariable, "alias", 0)
	}
	for t := c.classType(); t != nil; t = t.Outer {
		for _, m := range c.ix.MethodsOf(t) {
			if workspace.IsGenerator(m) {
				c.add(m.Name, protocol.CompletionItemKindFunction, declText(m), 1)
			}
		}
	}
	c.indexed(true)
}

// terms offers what can start a term or fill an argument list.
func (c *completer) terms() {
	for _, v := range c.variables() {
		c.add(v, protocol.CompletionItemKindVariable, "variable", 0)
	}
	for _, a := range c.aliases() {
		c.add(a.Name, protocol.CompletionItemKindVariable, "alias", 0)
	}
	if c.method != nil {
		c.add("SELF", protocol.CompletionItemKindKeyword, "the annotated method", 1)
		c.add("THIS", protocol.CompletionItemKindKeyword, "the annotated method", 1)
	}
	for _, kw := range []string{"for", "in", "and", "or", "implies"} {
		c.add(kw, protocol.CompletionItemKindKeyword, "", 3)
	}
	for t := c.classType(); t != nil; t = t.Outer {
		for _, m := range c.ix.MethodsOf(t) {
			if !m.IsConstructor && !workspace.IsGenerator(m) {
				c.add(m.Name, protocol.CompletionItemKindMethod, declText(m), 2)
			}
		}
	}
	c.indexed(false)
}

// indexed offers the workspace's methods as pkg.Class#method, when the word
// typed so far starts the class's package or simple name.
func (c *completer) indexed(generator bool) {
	if c.word == "" {
		return
	}
	lw := strings.ToLower(c.word)
	for _, name := range c.ix.TypesWithPrefix("", 0) {
		simple := name[strings.LastIndex(name, ".")+1:]
		if !strings.HasPrefix(strings.ToLower(name), lw) && !strings.HasPrefix(strings.ToLower(simple), lw) {
			continue
		}
		t := c.ix.Type(name)
		for _, m := range c.ix.MethodsOf(t) {
			if m.IsConstructor || workspace.IsGenerator(m) != generator {
				continue
			}
			label := name + "#" + m.Name
			if c.seen[label] {
				continue
			}
			if len(c.items) >= maxCompletions {
				c.incomplete = true
				return
			}
			c.seen[label] = true
			c.items = append(c.items, protocol.CompletionItem{
				Label: label, Kind: protocol.CompletionItemKindMethod, Detail: declText(m),
				FilterText: c.word + label, SortText: "e" + label,
				TextEdit: &protocol.TextEdit{Range: c.rng, NewText: label},
			})
		}
	}
}

// aliases visible at the cursor: those of the annotated method's parsed
// formulas, and those declared in the string being typed (which may not
// parse yet).
func (c *completer) aliases() []*spl.Alias {
	var out []*spl.Alias
	seen := map[string]bool{}
	for _, f := range c.doc.Formulas {
		if f.Method != c.method { // in .spl files: every alias of the file
			continue
		}
		for _, list := range [][]*spl.Alias{f.Aliases, f.GeneratorAliases} {
			for _, a := range list {
				if !seen[a.Name] {
					seen[a.Name] = true
					out = append(out, a)
				}
			}
		}
	}
	for _, name := range spl.DeclaredAliases(c.scope) {
		if !seen[name] {
			seen[name] = true
			out = append(out, &spl.Alias{Name: name})
		}
	}
	return out
}

// variables quantified in the string being typed.
func (c *completer) variables() []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, f := range c.formulas {
		if f.Parsed == nil {
			continue
		}
		for _, q := range f.Parsed.Quantifiers {
			for _, v := range q.Vars {
				add(v.Name)
			}
		}
	}
	for _, v := range spl.QuantifiedVariables(c.scope) {
		add(v)
	}
	return out
}
