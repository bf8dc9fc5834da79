// Package spl parses, lints and expands Stochastic Performance Logic
// formulas as written in Java @SPL annotations and standalone .spl files.
//
// Two surface dialects are accepted and produce one AST:
//
//   - the original SPL Tools grammar (JavaCC Parser.jj): "for (i{1,2} j{10})",
//     zipped sequences "(a,b){(1,2),(2,4)}", "&" "|" "==>", lambdas "<=(2, 3)",
//     interval equality "=(0.1)", entities "proj@rev:pkg.Class('s')#m(int)";
//   - the thesis dialect: "for i in {10, 20}", "name := entity" aliases,
//     "and"/"or"/"implies", THIS/SELF, dotted "pkg.Class.method@rev",
//     scalar transforms "1.05 * m[w](l)", double-quoted strings and
//     "#" comments.
//
// Entry points: Parse (formula string or whole .spl file), ParseMethodAlias
// and ParseGeneratorAlias (original methods={..} / generators={..}
// elements), ParseMethod and ParseGenerator (a bare entity, e.g. a
// @Workload value). Parse reports syntax errors only; Lint adds the
// semantic ones; ParseAndLint does both. Expand turns a formula into one
// Instance per quantifier binding.
//
// Layout rules for .spl text (and formula strings, which are one line):
//   - a "#" starts a comment to the end of the line when it is the first
//     non-blank character of its line, or when it follows a blank and the
//     next character cannot start an identifier ("x  # note"); otherwise it
//     is the method separator ("pkg.Class#m", "pkg.Class #m");
//   - an item (alias or formula) ends where the next token cannot continue
//     it; a new item must start on a new line. A formula may span lines
//     ("… and" newline "…"), but an alias entity starts on the line of its
//     ":=", and "(" or "@rev" continuing an entity stay on its line.
//
// Not supported: negation, existential quantifiers, arithmetic beyond a
// single scale factor per term, the "&&"/"||"/"=>" operators of
// spl-evaluation-java (reported, then read as "&", "|", "==>"), Java
// generics or varargs in parameter types, and SPL Tools "name=entity"
// aliases inside Parse (they read as an "=" comparison; use
// ParseMethodAlias / ParseGeneratorAlias).
//
// The package is pure: no I/O, no global mutable state, so every function is
// safe for concurrent use. Parsers never panic and always terminate; after
// syntax errors the AST is partial (see Formula).
package spl

// Span is a half-open byte range [Start, End) into the source string that
// was handed to the parser.
type Span struct{ Start, End int }

// Len is the number of bytes covered.
func (s Span) Len() int { return s.End - s.Start }

// join returns the smallest span covering a and b.
func join(a, b Span) Span {
	if b.Start < a.Start {
		a.Start = b.Start
	}
	if b.End > a.End {
		a.End = b.End
	}
	return a
}

// Severity of a diagnostic. The values equal the LSP DiagnosticSeverity
// numbers (Error=1 … Hint=4) so the server can convert by a plain cast; the
// zero value means "unset" and is never produced.
type Severity int

const (
	Error Severity = iota + 1
	Warning
	Information
	Hint
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Information:
		return "information"
	case Hint:
		return "hint"
	}
	return "unknown"
}

// Diagnostic is one problem found in SPL text. Code is a short, stable
// kebab-case identifier (see the Code* constants); Message says what was
// expected and what was found.
type Diagnostic struct {
	Span     Span
	Severity Severity
	Code     string
	Message  string
}

// Diagnostic codes. They are part of the API: editors and tests match them.
const (
	CodeEmpty              = "empty"               // no formula in the text
	CodeUnexpectedToken    = "unexpected-token"    // a token that cannot appear here
	CodeUnexpectedEnd      = "unexpected-end"      // the text ended too early
	CodeUnclosed           = "unclosed"            // missing "]", ")" or "}"
	CodeUnterminatedString = "unterminated-string" // string without closing quote
	CodeInvalidEscape      = "invalid-escape"      // unknown backslash escape in a string
	CodeInvalidCharacter   = "invalid-character"   // a character SPL does not use
	CodeInvalidNumber      = "invalid-number"      // number out of range
	CodeUnknownOperator    = "unknown-operator"    // "=<", "=>", "&&", "!=", "≤" …
	CodeInvalidRevision    = "invalid-revision"    // "@" without a revision, revision given twice
	CodeTooManyErrors      = "too-many-errors"     // error cap reached for one formula
	CodeTooDeep            = "too-deep"            // parentheses nested too deeply
	CodeTooLarge           = "too-large"           // text longer than MaxTextBytes, not parsed

	CodeUndeclaredVariable = "undeclared-variable"
	CodeUnusedVariable     = "unused-variable"
	CodeDuplicateVariable  = "duplicate-variable"
	CodeDuplicateValue     = "duplicate-value"
	CodeMixedValues        = "mixed-values"
	CodeArityMismatch      = "arity-mismatch"
	CodeDuplicateAlias     = "duplicate-alias"
	CodeReservedName       = "reserved-name"
	CodeUnusedAlias        = "unused-alias"
	CodeInvalidInterval    = "invalid-interval"
	CodeInvalidScale       = "invalid-scale"
	CodeScalePlacement     = "scale-placement"
	CodeTooManyInstances   = "too-many-instances"
	CodeMissingValue       = "missing-value"
	CodeMetricMismatch     = "metric-mismatch" // a comparison of two metrics in different units
	CodeArithmetic         = "arithmetic"      // an argument's arithmetic has no value: beyond a Java long, division by zero
)

// Metrics are the demands a term may name, "cpu(m)[w](n)", with their
// units: analysis/model computes them (docs/models.md).
var Metrics = map[string]string{
	"wall": "ns", "cpu": "ns", "process_cpu": "ns", "gc_time": "ns",
	"alloc": "B", "gc_count": "count", "cpu_share": "ratio",
}

// Unit is the result of parsing one text: alias declarations and formulas in
// source order.
type Unit struct {
	Aliases  []*Alias
	Formulas []*Formula
}

// AliasKind tells how an alias may be used.
type AliasKind int

const (
	// AliasMethod: original methods={"a=…"} element, or a thesis alias that
	// can only be a method (it binds generators or names SELF, parameter types).
	AliasMethod AliasKind = iota
	// AliasGenerator: original generators={"g=…"} element, or a thesis alias
	// written in generator-only syntax such as pkg.Gen('s')#make('t').
	AliasGenerator
	// AliasEither: thesis "name := entity". Syntax cannot tell a method from a
	// workload generator ("w := saxBuilderTest", "copy := copyString"), so both
	// views are filled: Method always, Generator when the entity can denote
	// one. Resolution picks the view from the use site: inside "[…]" the
	// Generator view, as a term head the Method view.
	AliasEither
)

// Alias is a named entity. Method and/or Generator are set according to Kind.
type Alias struct {
	Name     string
	NameSpan Span
	Kind     AliasKind
	// Method is set for AliasMethod and AliasEither.
	Method *MethodRef
	// Generator is set for AliasGenerator, and for AliasEither when the
	// entity can be read as a generator.
	Generator *GeneratorRef
	// BoundGenerator and BoundFactory come from the thesis form
	// "a := ArrayList.contains[randomSearch, factoryArrayList]" (Listing 9):
	// a term "a(i)" without brackets uses them. Nil otherwise.
	BoundGenerator, BoundFactory *GeneratorRef
	Span                         Span // whole declaration
}

// Formula is one SPL formula with its quantifiers.
//
// After syntax errors the AST is partial but consistent: a comparison or
// operand that failed to parse is left out of Body (so every Comparison has
// both terms and every Term a Method), and Body is nil when nothing usable
// was parsed.
type Formula struct {
	Span        Span
	Quantifiers []*Quantifier
	Body        Expr
}

// Quantifier binds variables to finite value lists.
//
// An independent variable ("for n in {…}" or "i{1,2}") is one Quantifier
// with one variable. A zipped sequence "(a, b){(1, 2), (2, 4)}" is one
// Quantifier with Zipped set: Values[k] are the values of Vars[k] (the k-th
// tuple, as in SPL Tools), stepped together: (a=1, b=2), (a=2, b=4).
// Lint reports when the tuple count or lengths disagree.
type Quantifier struct {
	Vars       []Ident
	Values     [][]Value // one slice per var (for zipped: per tuple)
	ValueSpans []Span    // span of each value list "{…}" / "(…)", parallel to Values
	Zipped     bool
	Span       Span
}

// Ident is a name with its position.
type Ident struct {
	Name string
	Span Span
}

// ValueKind is the type of a literal value.
type ValueKind int

const (
	Int ValueKind = iota
	Float
	String
)

func (k ValueKind) String() string {
	switch k {
	case Int:
		return "int"
	case Float:
		return "float"
	case String:
		return "string"
	}
	return "unknown"
}

// Value is a literal: a quantifier value or a term argument.
type Value struct {
	Int   int64
	Float float64 // for Kind Float; for Int also set to float64(Int)
	Str   string  // decoded string content, for Kind String
	Kind  ValueKind
	Span  Span
}

// Expr is a formula body node: *Logic, *Paren or *Comparison.
type Expr interface {
	ExprSpan() Span
	String() string
}

// LogicOp is a logical connective.
type LogicOp int

const (
	And LogicOp = iota
	Or
	Implies
)

func (op LogicOp) String() string {
	switch op {
	case And:
		return "and"
	case Or:
		return "or"
	case Implies:
		return "==>"
	}
	return "?"
}

// Logic is X op Y. Precedence: and > or > implies; all left-associative.
type Logic struct {
	Op     LogicOp
	X, Y   Expr
	OpSpan Span
}

// Paren is a parenthesised sub-formula, kept for exact spans and rendering.
type Paren struct {
	X    Expr
	Span Span
}

// CmpOp is a comparison sign.
type CmpOp int

const (
	LT  CmpOp = iota // <
	LE               // <=
	GT               // >
	GE               // >=
	EQ               // == (t-test equality)
	EQI              // =  (equality within a relative interval δ)
)

func (op CmpOp) String() string {
	switch op {
	case LT:
		return "<"
	case LE:
		return "<="
	case GT:
		return ">"
	case GE:
		return ">="
	case EQ:
		return "=="
	case EQI:
		return "="
	}
	return "?"
}

// Comparison is "Left op Right" with an optional lambda (left and right
// multipliers, original syntax "<=(2, 3)") and, for EQI, an optional
// interval δ ("=(0.1)", "=(2, 3, 0.1)").
type Comparison struct {
	Left, Right *Term
	Op          CmpOp
	OpSpan      Span
	Lambda      *Lambda
	Interval    *float64
	Span        Span
}

// Lambda holds the two multipliers of an original-syntax comparison. Each
// is a product of factors; identifiers are formula variables or SPL Tools
// configuration parameters (e.g. CPU).
type Lambda struct {
	Left, Right []Factor
	Span        Span
}

// Factor is a number or an identifier in a lambda product.
type Factor struct {
	Number *float64
	Ident  string
	Span   Span
}

// Term is one measured entity: [scale *] method [generator[, factory]] (args).
type Term struct {
	// Scale is the thesis scalar transform "1.05 * m" or "m * 1.05"; nil = 1.
	Scale     *float64
	ScaleSpan Span
	Method    *MethodRef
	// Generator is the workload in "[…]", nil when there are no brackets.
	Generator *GeneratorRef
	// Factory is the optional second bracket entry "[gen, factory]" (thesis
	// Listing 9: the object factory supplying the receiver).
	Factory   *GeneratorRef
	Args      []Arg
	ArgsGiven bool // "(…)" was written, possibly empty
	// Metric is the demand compared, from "cpu(m)[w](n)" (see Metrics);
	// "" means wall time, as "wall(m)" does. MetricSpan is the metric's
	// name in the text.
	Metric     string
	MetricSpan Span
	Span       Span
}

// Arg is a generator argument: a variable reference (Var), a literal
// (Value), or arithmetic over them (Calc, e.g. "10 * n", "(n + 1) / 2").
type Arg struct {
	Var   string
	Value *Value
	Calc  *Calc
	Span  Span
}

// Calc is an arithmetic argument: Op applied to X and Y ('+', '-', '*',
// '/'), or a leaf holding a variable (Var) or a number (Value); Paren marks
// a parenthesised expression as written.
type Calc struct {
	Op    byte
	X, Y  *Calc
	Var   string
	Value *Value
	Paren bool
	Span  Span
}

// Vars calls f with every variable reference in c, in order.
func (c *Calc) Vars(f func(name string, at Span)) {
	switch {
	case c == nil:
	case c.Op != 0:
		c.X.Vars(f)
		c.Y.Vars(f)
	case c.Var != "":
		f(c.Var, c.Span)
	}
}

// String renders c, variables replaced by sub where it knows them.
func (c *Calc) String(sub func(string) (Value, bool)) string {
	var s string
	switch {
	case c.Op != 0:
		s = c.X.String(sub) + " " + string(c.Op) + " " + c.Y.String(sub)
	case c.Value != nil:
		s = c.Value.String()
	default:
		s = c.Var
		if sub != nil {
			if v, ok := sub(c.Var); ok {
				s = v.String()
			}
		}
	}
	if c.Paren {
		return "(" + s + ")"
	}
	return s
}

// MethodRef is a method entity.
//
// Shapes:
//   - SELF / THIS: Self set, Name is the keyword as written;
//   - bare identifier: Name set, Class and Method empty — an alias or a
//     method of the annotated class;
//   - otherwise Class (dotted, "" allowed only with a project prefix) and
//     Method are set. Dotted records the thesis spelling "pkg.Class.m"
//     (last segment = method) as opposed to "pkg.Class#m".
type MethodRef struct {
	Self     bool
	Name     string
	Project  string
	Revision string
	// RevisionSpan is the "@rev" text, when Revision is set.
	RevisionSpan Span
	Class        string
	CtorArg      *string // pkg.Class('s')#m: string passed to the receiver's constructor
	Method       string
	Dotted       bool
	// Params is nil when no parameter list was given; otherwise each type
	// as written ("java.lang.String", "double[][]"); parameter names dropped.
	Params []string
	Span   Span
}

// GeneratorRef is a generator (workload) entity.
//
// Shapes:
//   - bare identifier: Name — an alias or a generator method of the
//     annotated class;
//   - Class with CtorGiven ("pkg.Gen()", "pkg.Gen('s')"): instantiate the
//     class; without Method the instance is the Iterable<Object[]>;
//   - Class + Method: "pkg.Gen#make('t')" static factory, or
//     "pkg.Gen('s')#make('t')" instance factory when CtorGiven;
//   - MaybeClass: written "a.b.C" without "#" or parentheses. Parsed as
//     Class "a.b", Method "C" (thesis pkg.Class.gen), but in SPL Tools the
//     same text names the class a.b.C; resolution should try both.
type GeneratorRef struct {
	Name     string
	Project  string
	Revision string
	// RevisionSpan is the "@rev" text, when Revision is set.
	RevisionSpan Span
	Class        string
	CtorGiven    bool
	CtorArg      *string
	Method       string
	MethodArg    *string
	MaybeClass   bool
	Span         Span
}

// ExprSpan implements Expr.
func (l *Logic) ExprSpan() Span { return join(l.X.ExprSpan(), l.Y.ExprSpan()) }

// ExprSpan implements Expr.
func (p *Paren) ExprSpan() Span { return p.Span }

// ExprSpan implements Expr.
func (c *Comparison) ExprSpan() Span { return c.Span }

// Comparisons returns all comparisons in e in source order.
func Comparisons(e Expr) []*Comparison {
	var out []*Comparison
	var walk func(Expr)
	walk = func(e Expr) {
		switch n := e.(type) {
		case *Logic:
			walk(n.X)
			walk(n.Y)
		case *Paren:
			walk(n.X)
		case *Comparison:
			out = append(out, n)
		}
	}
	if e != nil {
		walk(e)
	}
	return out
}

// Terms returns the terms of all comparisons in e in source order.
func Terms(e Expr) []*Term {
	var out []*Term
	for _, c := range Comparisons(e) {
		out = append(out, c.Left, c.Right)
	}
	return out
}

// AsGenerator reads a method entity as a generator entity, for thesis
// aliases used inside "[…]". An empty parameter list reads as the SPL Tools
// constructor parentheses: "main.Generator()" names the class
// main.Generator instantiated with no argument. It returns nil when the
// entity cannot name a generator (SELF/THIS, or parameter types given).
func (m *MethodRef) AsGenerator() *GeneratorRef {
	if m == nil || m.Self || len(m.Params) > 0 {
		return nil
	}
	g := &GeneratorRef{
		Name:     m.Name,
		Project:  m.Project,
		Revision: m.Revision,
		Class:    m.Class,
		Method:   m.Method,
		Span:     m.Span,

		RevisionSpan: m.RevisionSpan,
	}
	if m.CtorArg != nil {
		s := *m.CtorArg
		g.CtorArg, g.CtorGiven = &s, true
	}
	switch {
	case m.Params != nil && m.Name != "": // "Gen()"
		g.Name, g.Class, g.CtorGiven = "", m.Name, true
	case m.Params != nil && m.Dotted: // "pkg.Gen()"
		g.Class, g.Method, g.CtorGiven = m.Class+"."+m.Method, "", true
	default:
		g.MaybeClass = m.Dotted && m.CtorArg == nil
	}
	return g
}
