package javasrc

import (
	"strings"

	"github.com/perfls/perfls/analysis/textpos"
)

// method builds the Method for a method, constructor, compact constructor
// or annotation element declaration.
func (b *builder) method(n *fnode, owner *Type) *Method {
	m := &Method{Type: owner, Span: b.span(n)}
	k := kindOf(n)
	switch k {
	case "constructor_declaration":
		m.IsConstructor = true
	case "compact_constructor_declaration":
		m.IsConstructor, m.IsCompact = true, true
	}
	var (
		modifiers, retType, params, typeParams *fnode
		nameNode                               *fnode
		retDims                                int
		hasBody, native                        bool
	)
	for _, c := range children(n) {
		switch {
		case c.kind == "modifiers":
			modifiers = c.n
		case c.field == "type_parameters":
			typeParams = c.n
		case c.field == "type":
			retType = c.n
		case c.field == "name":
			nameNode = c.n
		case c.field == "parameters":
			params = c.n
		case c.field == "dimensions":
			retDims += b.countDims(c.n)
		case c.field == "body":
			hasBody = true
		}
	}
	if nameNode == nil || nameNode.IsMissing() {
		return nil
	}
	m.NameSpan = b.span(nameNode)
	if m.IsConstructor {
		m.Name = "<init>"
	} else {
		m.Name = b.text(nameNode)
	}

	env := b.methodTypeVars(owner, typeParams)
	if retType != nil {
		m.ReturnType = b.typeText(retType) + strings.Repeat("[]", retDims)
	}

	var paramMods []*fnode
	switch {
	case params != nil:
		m.Params = b.params(params, env, &paramMods)
	case m.IsCompact && owner != nil:
		m.Params = append([]Param(nil), owner.RecordComponents...)
	}

	ctx := owner
	if modifiers != nil {
		for _, c := range children(modifiers) {
			switch c.kind {
			case "static":
				m.Static = true
			case "native":
				native = true
			case "annotation", "marker_annotation":
				b.methodAnnotation(m, c.n, ctx)
			}
		}
	}

	m.Abstract = k == "method_declaration" && !hasBody && !native
	b.generatorParamDocs(m, paramMods, ctx)
	return m
}

// methodTypeVars resolves a type variable of a method to its erasure: the
// method's own type parameters (typeParams, nil when none) first, then its
// owner's.
func (b *builder) methodTypeVars(owner *Type, typeParams *fnode) func(string) (string, bool) {
	var env func(string) (string, bool)
	if owner != nil {
		env = owner.typeVar
	}
	if typeParams != nil {
		tps := b.typeParams(typeParams, env)
		outer := env
		env = func(name string) (string, bool) {
			for _, p := range tps {
				if p.name == name {
					return p.erasure, true
				}
			}
			if outer != nil {
				return outer(name)
			}
			return "", false
		}
	}
	return env
}

// generatorParamDocs reads the documentation of m's parameters as a
// generator's from their modifiers (paramMods, index-aligned with m.Params)
// into m.Generator, which it creates when a parameter is documented.
func (b *builder) generatorParamDocs(m *Method, paramMods []*fnode, ctx *Type) {
	documented := false
	docs := make([]ParamDoc, len(m.Params))
	for i := range m.Params {
		docs[i].Param = m.Params[i].Name
		if i < len(paramMods) && paramMods[i] != nil && b.paramDoc(&docs[i], paramMods[i], ctx) {
			documented = true
		}
	}
	if documented || m.Generator != nil {
		if m.Generator == nil {
			m.Generator = &GeneratorDoc{}
		}
		m.Generator.Params = docs
	}
}

// params reads formal parameters. When mods is non-nil it receives each
// parameter's modifiers node (or nil), index-aligned with the result.
func (b *builder) params(n *fnode, env func(string) (string, bool), mods *[]*fnode) []Param {
	var out []Param
	for _, c := range children(n) {
		if c.kind != "formal_parameter" && c.kind != "spread_parameter" {
			continue // receiver_parameter, punctuation, ERROR
		}
		var (
			p        = Param{Span: b.span(c.n), Varargs: c.kind == "spread_parameter"}
			typ      *fnode
			modNode  *fnode
			nameNode *fnode
			dims     int
		)
		for _, cc := range children(c.n) {
			switch {
			case cc.kind == "modifiers":
				modNode = cc.n
			case cc.field == "type":
				typ = cc.n
			case cc.field == "name":
				nameNode = cc.n
			case cc.field == "dimensions":
				dims += b.countDims(cc.n)
			case cc.kind == "variable_declarator": // spread_parameter
				for _, d := range children(cc.n) {
					switch d.field {
					case "name":
						nameNode = d.n
					case "dimensions":
						dims += b.countDims(d.n)
					}
				}
			case typ == nil && cc.field == "" && cc.n.IsNamed() && cc.kind != "annotation" && cc.kind != "marker_annotation" && cc.kind != "ERROR":
				typ = cc.n // spread_parameter's type has no field name
			}
		}
		if nameNode != nil {
			p.Name = b.text(nameNode)
			p.NameSpan = b.span(nameNode)
		}
		arr := strings.Repeat("[]", dims)
		if typ != nil {
			p.Type = b.typeText(typ) + arr
			p.Erased = b.erasure(typ, env) + arr
		}
		if p.Varargs {
			p.Type += "..."
			p.Erased += "[]"
		}
		out = append(out, p)
		if mods != nil {
			*mods = append(*mods, modNode)
		}
	}
	return out
}

// annArg is one argument of an annotation; key is "" for the single
// unnamed value.
type annArg struct {
	key   string
	value *fnode
	span  textpos.Span // the whole "key = value" pair, or the value
	// quiet marks a value recovered from an ERROR node: used when it is a
	// constant, but not worth a problem when it is not.
	quiet bool
}

// valueLike are the node kinds accepted as annotation values inside ERROR
// nodes; identifiers and keywords there are usually the next declaration.
var valueLike = map[string]bool{
	"string_literal": true, "character_literal": true, "binary_expression": true,
	"parenthesized_expression": true, "element_value_array_initializer": true,
	"annotation": true, "field_access": true, "unary_expression": true,
	"decimal_integer_literal": true, "hex_integer_literal": true, "octal_integer_literal": true,
	"binary_integer_literal": true, "decimal_floating_point_literal": true, "hex_floating_point_literal": true,
}

// annotation returns an annotation's simple name and its arguments. Values
// that tree-sitter put into ERROR nodes (e.g. the thesis form
// @Param("label", min=0), which mixes an unnamed value with named ones) are
// still returned.
func (b *builder) annotation(n *fnode) (string, []annArg) {
	var nameNode, args *fnode
	for _, c := range children(n) {
		switch c.field {
		case "name":
			nameNode = c.n
		case "arguments":
			args = c.n
		}
	}
	if nameNode == nil {
		return "", nil
	}
	name := b.simpleName(nameNode)
	if args == nil {
		return name, nil
	}
	var out []annArg
	var walk func(n *fnode, inError bool)
	walk = func(n *fnode, inError bool) {
		for _, c := range children(n) {
			switch {
			case c.kind == "element_value_pair":
				a := annArg{span: b.span(c.n), quiet: inError || c.n.HasError()}
				for _, cc := range children(c.n) {
					switch cc.field {
					case "key":
						a.key = b.text(cc.n)
					case "value":
						a.value = cc.n
					}
				}
				if a.value != nil {
					out = append(out, a)
				}
			case c.kind == "ERROR":
				walk(c.n, true)
			case inError && !valueLike[c.kind]:
			case c.n.IsNamed():
				out = append(out, annArg{value: c.n, span: b.span(c.n), quiet: inError})
			}
		}
	}
	// In a half-typed annotation every value is a guess: use what
	// evaluates, report nothing about the rest (the syntax error says it).
	walk(args, args.HasError())
	return name, out
}

// elements returns the elements of an array initializer {a, b}, or v itself.
func elements(v *fnode) []*fnode {
	if kindOf(v) != "element_value_array_initializer" {
		return []*fnode{v}
	}
	var out []*fnode
	for _, c := range namedChildren(v) {
		if kindOf(c) == "ERROR" {
			out = append(out, namedChildren(c)...)
			continue
		}
		out = append(out, c)
	}
	return out
}

// methodAnnotation reads one annotation of a method.
func (b *builder) methodAnnotation(m *Method, n *fnode, ctx *Type) {
	name, args := b.annotation(n)
	switch name {
	case "SPL":
		m.SPL = append(m.SPL, b.spl(n, args, ctx))
	case "SPLs":
		for _, a := range args {
			if a.key != "" && a.key != "value" {
				continue
			}
			for _, e := range elements(a.value) {
				if k := kindOf(e); k == "annotation" || k == "marker_annotation" {
					if inner, iargs := b.annotation(e); inner == "SPL" {
						m.SPL = append(m.SPL, b.spl(e, iargs, ctx))
					}
				}
			}
		}
	case "Workload":
		m.Workloads = append(m.Workloads, b.valueStrings(args, ctx, "@Workload value")...)
	case "Workloads":
		for _, a := range args {
			if a.key != "" && a.key != "value" {
				continue
			}
			for _, e := range elements(a.value) {
				if k := kindOf(e); k == "annotation" || k == "marker_annotation" {
					if inner, iargs := b.annotation(e); inner == "Workload" {
						m.Workloads = append(m.Workloads, b.valueStrings(iargs, ctx, "@Workload value")...)
					}
				}
			}
		}
	case "SeeAlso":
		m.SeeAlso = append(m.SeeAlso, b.valueStrings(args, ctx, "@SeeAlso value")...)
	case "Generator":
		g := m.Generator
		if g == nil {
			g = &GeneratorDoc{}
			m.Generator = g
		}
		g.Span = b.span(n)
		for _, a := range args {
			switch a.key {
			case "", "value", "description":
				if sv := b.firstString(a, ctx, "@Generator description"); sv != nil {
					g.Description = sv
				}
			case "name":
				if sv := b.firstString(a, ctx, "@Generator name"); sv != nil {
					g.Name = sv
				}
			}
		}
	}
}

// spl reads one @SPL annotation.
func (b *builder) spl(n *fnode, args []annArg, ctx *Type) *SPLAnnotation {
	a := &SPLAnnotation{Span: b.span(n)}
	for _, arg := range args {
		var dst *[]*StringValue
		var what string
		switch arg.key {
		case "", "value", "formula", "formulas":
			dst, what = &a.Formulas, "@SPL formula"
		case "methods", "method":
			dst, what = &a.MethodAliases, "@SPL method alias"
		case "generators", "generator":
			dst, what = &a.GeneratorAliases, "@SPL generator alias"
		case "interpretation":
			for _, e := range elements(arg.value) {
				if sv := b.stringValue(e, ctx, "@SPL interpretation", arg.quiet); sv != nil {
					a.Interpretation = sv
				}
			}
			continue
		default:
			if arg.quiet {
				continue
			}
			b.problem(arg.span, "unknown @SPL element %q (expected formula, methods, generators or interpretation)", arg.key)
			continue
		}
		for _, e := range elements(arg.value) {
			if sv := b.stringValue(e, ctx, what, arg.quiet); sv != nil {
				*dst = append(*dst, sv)
			}
		}
	}
	return a
}

// valueStrings reads the strings of an annotation's value element (single
// or array).
func (b *builder) valueStrings(args []annArg, ctx *Type, what string) []*StringValue {
	var out []*StringValue
	for _, a := range args {
		if a.key != "" && a.key != "value" {
			continue
		}
		for _, e := range elements(a.value) {
			if sv := b.stringValue(e, ctx, what, a.quiet); sv != nil {
				out = append(out, sv)
			}
		}
	}
	return out
}

func (b *builder) firstString(a annArg, ctx *Type, what string) *StringValue {
	for _, e := range elements(a.value) {
		if sv := b.stringValue(e, ctx, what, a.quiet); sv != nil {
			return sv
		}
	}
	return nil
}

// stringValue evaluates a string constant, recording a Problem when the
// expression is not one.
func (b *builder) stringValue(e *fnode, ctx *Type, what string, quiet bool) *StringValue {
	v, err := b.eval(e, ctx)
	if err == nil && v.k != vStr {
		err = &evalErr{b.span(e), "the value is not a string"}
	}
	if err != nil {
		if quiet {
			return nil
		}
		b.problem(err.span, "%s must be a compile-time string constant: %s", what, err.msg)
		return nil
	}
	return newStringValue(v.s, b.span(e))
}

// paramDoc reads @Param, @ParamNum and @ParamDesc from a parameter's
// modifiers and reports whether any was present.
func (b *builder) paramDoc(d *ParamDoc, mods *fnode, ctx *Type) bool {
	found := false
	for _, c := range children(mods) {
		if c.kind != "annotation" && c.kind != "marker_annotation" {
			continue
		}
		name, args := b.annotation(c.n)
		if name != "Param" && name != "ParamNum" && name != "ParamDesc" {
			continue
		}
		found = true
		d.Span = b.span(c.n)
		for _, a := range args {
			switch a.key {
			case "", "value", "description", "label", "name":
				if sv := b.firstString(a, ctx, "@"+name+" label"); sv != nil {
					d.Label = sv
				}
			case "min":
				d.Min = b.number(a, ctx, "@"+name+" min")
			case "max":
				d.Max = b.number(a, ctx, "@"+name+" max")
			case "step":
				d.Step = b.number(a, ctx, "@"+name+" step")
			}
		}
	}
	return found
}

// number evaluates a numeric constant.
func (b *builder) number(a annArg, ctx *Type, what string) *float64 {
	v, err := b.eval(a.value, ctx)
	if err == nil {
		if f, ok := v.float(); ok {
			return &f
		}
		err = &evalErr{b.span(a.value), "the value is not a number"}
	}
	if a.quiet {
		return nil
	}
	b.problem(err.span, "%s must be a numeric constant: %s", what, err.msg)
	return nil
}
