package editor

import (
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/spl"
)

// Signature is textDocument/signatureHelp's answer for a generator's
// arguments: "gen(int n, int m)", its parameters (each with the range of
// its text in Label, in bytes, and the generator's documentation of it)
// and the parameter the cursor is on.
type Signature struct {
	Label  string
	Doc    string // the generator's description, "" for none
	Params []SignatureParam
	Active int
}

// SignatureParam is one parameter of a Signature.
type SignatureParam struct {
	Start, End int // Label[Start:End] is the parameter's text
	Doc        string
}

// SignatureAt finds, at byte offset of the file with path, the argument
// list of a term measured on a generator ("SELF[gen](10, |") and the
// generator's signature; false when the offset is in no such list or the
// generator does not resolve to a workspace method.
func (w Workspace) SignatureAt(path string, offset int) (Signature, bool) {
	f := w.File(path)
	if f == nil {
		return Signature{}, false
	}
	var out Signature
	found := false
	eachString(f, func(host *javasrc.Method, ann *javasrc.SPLAnnotation, v *javasrc.StringValue, what int) bool {
		if what != strFormula || offset < v.Span.Start || offset > v.Span.End {
			return true
		}
		i, ok := textOffset(v, offset)
		if !ok {
			return true
		}
		name, active, ok := generatorCall(v.Text, i)
		if !ok {
			return false
		}
		g, _ := spl.ParseGenerator(name)
		if g == nil {
			return false
		}
		m, ok := w.resolve(f, host, ann, entity{gen: g})
		if !ok {
			return false
		}
		out, found = signatureOf(m, active), true
		return false
	})
	return out, found
}

// generatorCall reads text backwards from i for the innermost argument
// list still open there that follows "[…]": the bracket's text and how
// many top-level commas precede i in the list.
func generatorCall(text string, i int) (gen string, active int, ok bool) {
	depth := 0
	for j := min(i, len(text)) - 1; j >= 0; j-- {
		switch text[j] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth == 0 {
				return "", 0, false // inside brackets or a set of values, not arguments
			}
			depth--
		case ',':
			if depth == 0 {
				active++
			}
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			k := j - 1
			for k >= 0 && (text[k] == ' ' || text[k] == '\t') {
				k--
			}
			if k < 0 || text[k] != ']' {
				return "", 0, false // a method's own arguments or a parenthesis
			}
			lb := strings.LastIndexByte(text[:k], '[')
			if lb < 0 {
				return "", 0, false
			}
			return strings.TrimSpace(text[lb+1 : k]), active, true
		}
	}
	return "", 0, false
}

// signatureOf renders a generator's signature with the cursor on
// parameter active (clamped to the last).
func signatureOf(m *javasrc.Method, active int) Signature {
	var b strings.Builder
	b.WriteString(m.Name + "(")
	s := Signature{}
	for i, p := range m.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		sp := SignatureParam{Start: b.Len()}
		b.WriteString(strings.TrimSpace(p.Type + " " + p.Name))
		sp.End = b.Len()
		if m.Generator != nil && i < len(m.Generator.Params) {
			sp.Doc = paramDoc(m.Generator.Params[i])
		}
		s.Params = append(s.Params, sp)
	}
	b.WriteString(")")
	s.Label = b.String()
	if m.Generator != nil && m.Generator.Description != nil {
		s.Doc = m.Generator.Description.Text
	}
	s.Active = min(active, max(len(s.Params)-1, 0))
	return s
}

// paramDoc is a generator parameter's label and range: "elements, 1 … 1e6".
func paramDoc(p javasrc.ParamDoc) string {
	var parts []string
	if p.Label != nil && p.Label.Text != "" {
		parts = append(parts, p.Label.Text)
	}
	num := func(f *float64) string { return strconv.FormatFloat(*f, 'g', -1, 64) }
	switch {
	case p.Min != nil && p.Max != nil:
		parts = append(parts, num(p.Min)+" … "+num(p.Max))
	case p.Min != nil:
		parts = append(parts, "≥ "+num(p.Min))
	case p.Max != nil:
		parts = append(parts, "≤ "+num(p.Max))
	}
	return strings.Join(parts, ", ")
}
