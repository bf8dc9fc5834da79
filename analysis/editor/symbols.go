package editor

import (
	"fmt"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/textpos"
	"github.com/perfls/perfls/analysis/workspace"
)

// SymbolKind is LSP's SymbolKind number.
type SymbolKind int

// The kinds the outline uses.
const (
	SymbolClass    SymbolKind = 5
	SymbolMethod   SymbolKind = 6
	SymbolFunction SymbolKind = 12 // a workload generator
	SymbolOperator SymbolKind = 25 // a formula: a comparison of methods
)

// Symbol is an LSP DocumentSymbol: Range covers the whole declaration,
// SelectionRange (inside it) the name to select.
type Symbol struct {
	Name           string        `json:"name"`
	Detail         string        `json:"detail,omitempty"`
	Kind           SymbolKind    `json:"kind"`
	Range          textpos.Range `json:"range"`
	SelectionRange textpos.Range `json:"selectionRange"`
	Children       []Symbol      `json:"children,omitempty"`
}

// maxSymbolName bounds a formula's name in the outline; the rest is "…".
const maxSymbolName = 80

// Symbols returns the outline of f's performance content: its types, and
// in each the methods that carry formulas (their formulas and aliases as
// children) or that are workload generators, in source order. Types
// without such methods are left out; the Java language server lists the
// rest.
func Symbols(f *javasrc.File) []Symbol {
	formulas, _ := workspace.JavaFormulas(f)
	byMethod := map[*javasrc.Method][]Symbol{}
	for _, fm := range formulas {
		if fm.Method == nil || fm.Value == nil || fm.Parsed == nil {
			continue
		}
		sp := fm.Value.DocSpan(textpos.Span{Start: fm.Parsed.Span.Start, End: fm.Parsed.Span.End})
		if !within(sp, fm.Value.Span) {
			sp = fm.Value.Span // from a constant declared elsewhere: show the use
		}
		r := f.Mapper.Range(sp)
		byMethod[fm.Method] = append(byMethod[fm.Method], Symbol{
			Name: shorten(fm.Value.Text[fm.Parsed.Span.Start:fm.Parsed.Span.End]), Detail: "formula",
			Kind: SymbolOperator, Range: r, SelectionRange: r,
		})
	}
	var methodSyms = map[*javasrc.Type][]Symbol{}
	var order []*javasrc.Type
	for _, m := range f.Methods {
		fs := byMethod[m]
		gen := workspace.IsGenerator(m)
		if len(fs) == 0 && !gen || m.Type == nil {
			continue
		}
		s := Symbol{
			Name: m.Name, Detail: detailOf(m, gen, len(fs)), Kind: SymbolMethod,
			Range: f.Mapper.Range(m.Span), SelectionRange: f.Mapper.Range(m.NameSpan), Children: fs,
		}
		if gen {
			s.Kind = SymbolFunction
		}
		if _, ok := methodSyms[m.Type]; !ok {
			order = append(order, m.Type)
		}
		methodSyms[m.Type] = append(methodSyms[m.Type], s)
	}
	// Types nest as in the source: a type with content keeps its enclosing
	// types in the outline.
	nodes := map[*javasrc.Type]*Symbol{}
	var roots []*javasrc.Type
	var node func(t *javasrc.Type) *Symbol
	node = func(t *javasrc.Type) *Symbol {
		if s := nodes[t]; s != nil {
			return s
		}
		name := t.Name
		if name == "" {
			name = t.QualifiedName[strings.LastIndexByte(t.QualifiedName, '.')+1:]
		}
		s := &Symbol{Name: name, Detail: t.Kind, Kind: SymbolClass, Range: f.Mapper.Range(t.Span), SelectionRange: f.Mapper.Range(t.NameSpan)}
		nodes[t] = s
		if t.Outer == nil {
			roots = append(roots, t)
		} else {
			node(t.Outer)
		}
		return s
	}
	for _, t := range order {
		node(t).Children = append(node(t).Children, methodSyms[t]...)
	}
	// Inner types join their outer type's children: innermost first, so
	// each is complete when copied into its parent.
	for i := len(f.Types) - 1; i >= 0; i-- {
		t := f.Types[i]
		if s := nodes[t]; s != nil && t.Outer != nil {
			o := nodes[t.Outer]
			o.Children = insertByPos(o.Children, *s)
		}
	}
	out := make([]Symbol, 0, len(roots))
	for _, t := range roots {
		out = append(out, *nodes[t])
	}
	return out
}

// insertByPos inserts s among siblings sorted by start position.
func insertByPos(sibs []Symbol, s Symbol) []Symbol {
	i := len(sibs)
	for i > 0 && before(s.Range.Start, sibs[i-1].Range.Start) {
		i--
	}
	sibs = append(sibs, Symbol{})
	copy(sibs[i+1:], sibs[i:])
	sibs[i] = s
	return sibs
}

func before(a, b textpos.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

func within(in, out textpos.Span) bool { return in.Start >= out.Start && in.End <= out.End }

// shorten keeps a formula's text on one line and within maxSymbolName runes.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxSymbolName {
		s = string(r[:maxSymbolName-1]) + "…"
	}
	return s
}

// detailOf says what a method is in the outline: "generator(int n)",
// "2 formulas".
func detailOf(m *javasrc.Method, gen bool, formulas int) string {
	var parts []string
	if gen {
		ps := make([]string, len(m.Params))
		for i, p := range m.Params {
			ps[i] = p.Type + " " + p.Name
		}
		parts = append(parts, "generator("+strings.Join(ps, ", ")+")")
	}
	switch {
	case formulas == 1:
		parts = append(parts, "1 formula")
	case formulas > 1:
		parts = append(parts, fmt.Sprintf("%d formulas", formulas))
	}
	return strings.Join(parts, ", ")
}
