// Package javasrc reads one Java source file with tree-sitter and turns it
// into an immutable model: package, imports, types (including nested, local
// and anonymous ones, with javac binary names), methods with their parameter
// types and erasures, and the perfls annotations (@SPL, @SPLs, @Workload,
// @Workloads, @SeeAlso, @Generator, @Param, @ParamNum, @ParamDesc) with
// their string values decoded.
//
// Every decoded string keeps a byte-exact map back to the document, so a
// problem found at byte k of a formula can be reported at the right place
// even when the formula is split with '+', uses escapes or text blocks, or
// refers to a constant. Convert document offsets to LSP positions with
// File.Mapper.
//
// No tree-sitter object outlives Parse: the model is plain Go values, never
// modified after Parse returns, and therefore safe to read from any number
// of goroutines.
//
// Annotations are matched by simple name whatever their package, so
// @SPL, @cz.cuni.mff.spl.SPL and @dev.perfls.SPL are all read.
//
// Files being edited are often broken. Parse keeps whatever tree-sitter
// recovers, and when a bracket or string left open makes tree-sitter lose
// the rest of a class, it re-parses a copy with the missing closers inserted
// where the indentation says they belong (see repair.go); the insertions
// are reported as syntax errors and all offsets still refer to the document.
//
// Limits:
//   - Constants are resolved only when declared in this file: by simple
//     name in the annotated type or an enclosing one, or as Type.NAME /
//     pkg.Type.NAME for a type of this file (also Integer.MAX_VALUE and the
//     like in numbers). Inherited and statically imported constants are
//     reported as unresolved.
//   - A floating-point value cannot be joined to a string (Java's
//     Double.toString format is not reproduced).
//   - Erasure replaces type variables by their first bound; the type
//     variables of enclosing classes are applied in static contexts too.
package javasrc

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/textpos"
)

// File is the model of one Java source file.
type File struct {
	Path   string
	Src    string // the text the model was built from
	Mapper *textpos.Mapper

	Package string // "" for the default package
	Imports []Import

	// Types lists every type declared in the file, flattened, outer before
	// inner, in source order (anonymous classes by the start of their body).
	Types []*Type
	// Methods lists every method, constructor and annotation element in
	// source order.
	Methods []*Method

	// SyntaxErrors are the spans of tree-sitter ERROR nodes and the
	// (zero-width) positions of MISSING nodes and of closers the error
	// recovery had to insert, in source order. SyntaxMessages[i] describes
	// SyntaxErrors[i] ("syntax error: unexpected \"(\"", "missing \"}\" to
	// close \"{\" on line 5"). In a file of 48 KB or more, the inside of
	// a method body that declares no type is not parsed (lazy.go), so an
	// error there is not listed unless the file has another.
	SyntaxErrors   []textpos.Span
	SyntaxMessages []string

	// Problems are semantic problems with the perfls annotations: values
	// that are not compile-time string constants, invalid escapes, unknown
	// annotation elements, numbers that cannot be evaluated.
	Problems []Problem

	// Skipped is set when the file was not parsed (binary content, or
	// larger than MaxSourceBytes; see Examine): the model is then empty.
	Skipped *Skipped
}

// Import is one import declaration.
type Import struct {
	Path     string // e.g. "java.util.List", "java.util" for java.util.*
	Static   bool
	Wildcard bool
	Span     textpos.Span
}

// Problem is a message about a span of the document.
type Problem struct {
	Span    textpos.Span
	Message string
}

// Type kinds.
const (
	KindClass      = "class"
	KindInterface  = "interface"
	KindEnum       = "enum"
	KindRecord     = "record"
	KindAnnotation = "annotation"
)

// Type is a class, interface, enum, record or annotation type.
type Type struct {
	// Name is the simple name; "" for an anonymous class.
	Name string
	// QualifiedName is the canonical name (pkg.Outer.Inner) for top-level
	// and member types. Local and anonymous types have no canonical name in
	// Java; for them it is the enclosing type's QualifiedName, a dot and the
	// javac suffix: pkg.Outer.1Local, pkg.Outer.1.
	QualifiedName string
	// BinaryName is the name javac gives the class file: pkg.Outer$Inner,
	// pkg.Outer$1Local for local classes, pkg.Outer$1 for anonymous ones
	// (numbered per enclosing class in source order, as javac does).
	BinaryName string
	Kind       string // KindClass, KindInterface, ...
	Outer      *Type  // lexically enclosing type, nil for top-level types
	Local      bool   // declared inside a method, constructor or initializer
	Anonymous  bool   // anonymous class (also an enum constant's body)
	// Super is, for an anonymous class, the type after 'new' as written
	// (or the enum's name for an enum constant body); "" otherwise.
	Super string

	// Span covers the declaration (for an anonymous class: its body).
	Span textpos.Span
	// NameSpan is the name identifier (for an anonymous class: the type
	// after 'new', or the enum constant's name).
	NameSpan textpos.Span

	// RecordComponents are a record's header components.
	RecordComponents []Param

	// Supers are the erased names of the direct supertypes as written in
	// extends/implements clauses ("AbstractList", "java.io.Serializable");
	// for an anonymous class, Super. Not resolved to qualified names.
	Supers []string

	// Constants holds the static final String fields (including the
	// implicitly static final fields of interfaces) whose initializer is a
	// compile-time constant this package can evaluate.
	Constants map[string]*StringValue

	typeParams []typeParam
}

type typeParam struct{ name, erasure string }

// Method is a method, a constructor, a record's compact constructor or an
// annotation type element.
type Method struct {
	// Type is the type that declares the method; it is nil only for a
	// method that, in a file with syntax errors, lies outside every type.
	Type *Type
	// Name is the simple name; "<init>" for constructors.
	Name          string
	IsConstructor bool
	// IsCompact marks a record's compact constructor; its Params are the
	// record components.
	IsCompact bool
	Static    bool
	// Abstract is set for a method without a body that is not native: an
	// abstract method or an interface method without default.
	Abstract bool
	Params   []Param
	// ReturnType as written ("" for constructors), with array dimensions
	// written after the parameter list appended.
	ReturnType string

	Span     textpos.Span // whole declaration, annotations included
	NameSpan textpos.Span

	SPL       []*SPLAnnotation
	Workloads []*StringValue // @Workload values, also inside @Workloads
	SeeAlso   []*StringValue
	// Generator is set when the method has @Generator or any parameter has
	// @Param, @ParamNum or @ParamDesc.
	Generator *GeneratorDoc
}

// Param is a formal parameter.
type Param struct {
	Name string
	// Type as written with whitespace normalised, with C-style dimensions
	// after the name moved to it ("int a[]" gives "int[]") and "..." kept
	// for varargs.
	Type string
	// Erased is the erasure: type arguments removed, type variables
	// replaced by the erasure of their first bound (Object when unbounded),
	// varargs as an array; names stay as written ("List", "java.util.Map",
	// "long[]", "String[]").
	Erased   string
	Varargs  bool
	Span     textpos.Span
	NameSpan textpos.Span
}

// SPLAnnotation is one @SPL annotation (also one element of @SPLs).
type SPLAnnotation struct {
	Span             textpos.Span
	Formulas         []*StringValue // value=, formula= or formulas=
	MethodAliases    []*StringValue // methods=, "alias=entity"
	GeneratorAliases []*StringValue // generators=, "alias=entity"
	Interpretation   *StringValue   // interpretation=, nil when not given
}

// GeneratorDoc documents a workload generator.
type GeneratorDoc struct {
	Span        textpos.Span // the @Generator annotation; zero when absent
	Description *StringValue // @Generator("…"), value= or description=
	Name        *StringValue // name=
	// Params has one entry per method parameter, in order; undocumented
	// parameters have only Param set.
	Params []ParamDoc
}

// ParamDoc documents one generator parameter.
type ParamDoc struct {
	Param          string       // the parameter's name
	Span           textpos.Span // the documenting annotation; zero when absent
	Label          *StringValue
	Min, Max, Step *float64
}

// StringValue is a compile-time constant string from the document.
type StringValue struct {
	// Text is the value: escapes decoded, text-block indentation stripped,
	// concatenations and constant references resolved.
	Text string
	// Span is the whole expression in the document.
	Span textpos.Span

	orig  []byteOrigin
	empty int
}

func newStringValue(b *strBuf, span textpos.Span) *StringValue {
	return &StringValue{Text: string(b.text), Span: span, orig: b.orig, empty: b.empty}
}

// DocOffset returns the document byte offset of byte i of Text:
//   - a byte copied from the document maps to that byte;
//   - a byte produced by an escape (\n, \u00e9, \uD83D\uDE00, octal, \s)
//     maps to the start of the escape, and a text-block line break to its
//     line terminator;
//   - a byte that comes from a referenced constant maps into that
//     constant's own literal (which is in the same file);
//   - a number or boolean joined to a string maps to its operand (byte for
//     byte when the literal is written exactly as the value; a number from
//     a numeric constant maps to the constant's name at the use site).
//
// i == len(Text) maps to just after the source of the last byte (for ""
// itself: to the closing quote). i is clamped to [0, len(Text)].
func (s *StringValue) DocOffset(i int) int {
	if s == nil {
		return 0
	}
	if i < 0 {
		i = 0
	}
	if i >= len(s.orig) {
		if len(s.orig) == 0 {
			return s.empty
		}
		return int(s.orig[len(s.orig)-1].srcEnd)
	}
	return int(s.orig[i].srcStart)
}

// DocSpan maps the byte span sp of Text to a document span. A span inside
// one literal maps exactly (also inside a referenced constant); a span that
// crosses '+' joins covers them; a span that mixes text from a constant with
// other text maps to the use site, covering the constant's name.
// An empty span maps to the empty span at DocOffset(sp.Start).
func (s *StringValue) DocSpan(sp textpos.Span) textpos.Span {
	if s == nil {
		return textpos.Span{}
	}
	n := len(s.orig)
	clamp := func(i int) int { return min(max(i, 0), n) }
	a, b := clamp(sp.Start), clamp(sp.End)
	if a >= b {
		o := s.DocOffset(a)
		return textpos.Span{Start: o, End: o}
	}
	first, last := s.orig[a], s.orig[b-1]
	if first.seg == last.seg && first.srcStart <= last.srcEnd {
		return textpos.Span{Start: int(first.srcStart), End: int(last.srcEnd)}
	}
	direct := true
	for _, o := range s.orig[a:b] {
		if o.srcStart != o.siteStart || o.srcEnd != o.siteEnd {
			direct = false
			break
		}
	}
	if direct && first.srcStart <= last.srcEnd {
		return textpos.Span{Start: int(first.srcStart), End: int(last.srcEnd)}
	}
	if first.siteStart <= last.siteEnd {
		return textpos.Span{Start: int(first.siteStart), End: int(last.siteEnd)}
	}
	return textpos.Span{Start: int(first.siteStart), End: int(first.siteEnd)}
}

// FromConstant reports whether byte i of Text comes from a referenced
// constant rather than from the expression at Span.
func (s *StringValue) FromConstant(i int) bool {
	if s == nil || i < 0 || i >= len(s.orig) {
		return false
	}
	o := s.orig[i]
	return o.srcStart != o.siteStart || o.srcEnd != o.siteEnd
}

// MethodAt returns the innermost method whose Span contains offset, or nil.
func (f *File) MethodAt(offset int) *Method {
	// Methods are sorted by start and nest properly, so the innermost
	// container is the last one starting at or before offset that contains it.
	i := sort.Search(len(f.Methods), func(i int) bool { return f.Methods[i].Span.Start > offset })
	for i--; i >= 0; i-- {
		m := f.Methods[i]
		if m.Span.Start <= offset && offset < m.Span.End {
			return m
		}
	}
	return nil
}

// TypeAt returns the innermost type whose Span contains offset, or nil.
func (f *File) TypeAt(offset int) *Type {
	var best *Type
	for _, t := range f.Types {
		if t.Span.Start > offset {
			break
		}
		if offset < t.Span.End {
			best = t
		}
	}
	return best
}

// TypeByName returns the type with the given qualified or binary name, or nil.
func (f *File) TypeByName(name string) *Type {
	for _, t := range f.Types {
		if t.QualifiedName == name || t.BinaryName == name {
			return t
		}
	}
	return nil
}

// Signature returns the method's name and erased parameter types, e.g.
// "sort(int[],Comparator)"; constructors use "<init>".
func (m *Method) Signature() string {
	n := len(m.Name) + 2
	for _, p := range m.Params {
		n += len(p.Erased) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, m.Name...)
	b = append(b, '(')
	for i, p := range m.Params {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p.Erased...)
	}
	b = append(b, ')')
	return string(b)
}

// SourceHash identifies the method's text (annotations, signature and body)
// in f, so a result recorded for it can tell when the method changed since.
// Whitespace runs are folded, so reindenting keeps the hash.
func (m *Method) SourceHash(f *File) string {
	if m.Span.Start < 0 || m.Span.End > len(f.Src) || m.Span.Start > m.Span.End {
		return ""
	}
	h := sha256.Sum256([]byte(strings.Join(strings.Fields(f.Src[m.Span.Start:m.Span.End]), " ")))
	return hex.EncodeToString(h[:8])
}
