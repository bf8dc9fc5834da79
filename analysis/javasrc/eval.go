package javasrc

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/perfls/perfls/analysis/textpos"
)

// A small evaluator for the compile-time constant expressions that appear
// in annotations: string, char, integer, floating-point and boolean
// literals, '+' concatenation, arithmetic, casts to primitive types,
// parentheses, and references to constants declared in this file.

type vkind uint8

const (
	vNone vkind = iota
	vStr
	vChar
	vInt // Java int (32 bits)
	vLong
	vFloat // float or double
	vBool
)

type cval struct {
	k vkind
	s *strBuf // vStr, vChar: the text and where it came from
	i int64   // vChar, vInt, vLong, vBool
	f float64 // vFloat
}

func (v cval) float() (float64, bool) {
	switch v.k {
	case vInt, vLong, vChar:
		return float64(v.i), true
	case vFloat:
		return v.f, true
	}
	return 0, false
}

func (v cval) integral() bool { return v.k == vInt || v.k == vLong || v.k == vChar }

type evalErr struct {
	span textpos.Span
	msg  string
}

// maxEvalDepth bounds recursion through deeply nested expressions.
const maxEvalDepth = 2000

func (b *builder) eval(n *fnode, ctx *Type) (cval, *evalErr) {
	return b.evalDepth(n, ctx, 0)
}

func (b *builder) evalDepth(n *fnode, ctx *Type, depth int) (cval, *evalErr) {
	sp := b.span(n)
	if depth > maxEvalDepth {
		return cval{}, &evalErr{sp, "expression is nested too deeply"}
	}
	k := kindOf(n)
	switch k {
	case "string_literal":
		buf, probs := decodeStringLiteral(b.text(n), sp.Start)
		b.litProblems(probs)
		return cval{k: vStr, s: buf}, nil
	case "character_literal":
		buf, probs := decodeCharLiteral(b.text(n), sp.Start)
		b.litProblems(probs)
		r := []rune(string(buf.text))
		if len(r) != 1 {
			return cval{}, &evalErr{sp, "invalid character literal"}
		}
		return cval{k: vChar, s: buf, i: int64(r[0])}, nil
	case "true", "false":
		v := cval{k: vBool}
		if k == "true" {
			v.i = 1
		}
		return v, nil
	case "decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal":
		return parseIntLiteral(b.text(n), sp)
	case "decimal_floating_point_literal", "hex_floating_point_literal":
		t := strings.ReplaceAll(b.text(n), "_", "")
		t = strings.TrimRight(t, "fFdD")
		if k == "hex_floating_point_literal" && !strings.ContainsAny(t, "pP") {
			return cval{}, &evalErr{sp, "invalid floating-point literal"}
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil && !isRangeErr(err) {
			return cval{}, &evalErr{sp, "invalid floating-point literal"}
		}
		return cval{k: vFloat, f: f}, nil
	case "parenthesized_expression":
		for _, c := range namedChildren(n) {
			return b.evalDepth(c, ctx, depth+1)
		}
		return cval{}, &evalErr{sp, "empty parentheses"}
	case "binary_expression":
		return b.evalBinary(n, ctx, depth)
	case "unary_expression":
		return b.evalUnary(n, ctx, depth)
	case "cast_expression":
		return b.evalCast(n, ctx, depth)
	case "identifier":
		return b.constRef(n, "", b.text(n), ctx)
	case "field_access":
		var obj, field *fnode
		for _, c := range children(n) {
			switch c.field {
			case "object":
				obj = c.n
			case "field":
				field = c.n
			}
		}
		if obj == nil || field == nil {
			return cval{}, &evalErr{sp, "incomplete field access"}
		}
		path, ok := b.dottedPath(obj)
		if !ok {
			return cval{}, &evalErr{sp, "only constants of named types can be referenced"}
		}
		return b.constRef(n, path, b.text(field), ctx)
	case "ERROR":
		return cval{}, &evalErr{sp, "syntax error"}
	}
	return cval{}, &evalErr{sp, strings.ReplaceAll(k, "_", " ") + " is not a constant expression"}
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (b *builder) litProblems(probs []litProblem) {
	for _, p := range probs {
		b.problem(p.span, "%s", p.msg)
	}
}

// parseIntLiteral parses a Java integer literal (int unless suffixed L).
func parseIntLiteral(t string, sp textpos.Span) (cval, *evalErr) {
	t = strings.ReplaceAll(t, "_", "")
	k := vInt
	if strings.HasSuffix(t, "l") || strings.HasSuffix(t, "L") {
		k = vLong
		t = t[:len(t)-1]
	}
	base := 10
	switch {
	case len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X"):
		base, t = 16, t[2:]
	case len(t) > 2 && (t[:2] == "0b" || t[:2] == "0B"):
		base, t = 2, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, t = 8, t[1:]
	}
	u, err := strconv.ParseUint(t, base, 64)
	if err != nil {
		return cval{}, &evalErr{sp, "invalid integer literal"}
	}
	v := cval{k: k, i: int64(u)}
	if k == vInt {
		if base == 10 {
			if u > 1<<31 { // 2147483648 is allowed only after unary minus
				return cval{}, &evalErr{sp, "integer literal out of range"}
			}
		} else {
			if u > math.MaxUint32 {
				return cval{}, &evalErr{sp, "integer literal out of range"}
			}
			v.i = int64(int32(uint32(u)))
		}
	} else if base == 10 && u > 1<<63 {
		return cval{}, &evalErr{sp, "long literal out of range"}
	}
	return v, nil
}

// binaryKind is the result kind of numeric promotion.
func binaryKind(a, c cval) vkind {
	switch {
	case a.k == vFloat || c.k == vFloat:
		return vFloat
	case a.k == vLong || c.k == vLong:
		return vLong
	}
	return vInt
}

func wrap(k vkind, i int64) int64 {
	if k == vInt {
		return int64(int32(i))
	}
	return i
}

func (b *builder) evalBinary(n *fnode, ctx *Type, depth int) (cval, *evalErr) {
	sp := b.span(n)
	var left, right *fnode
	op := ""
	for _, c := range children(n) {
		switch c.field {
		case "left":
			left = c.n
		case "right":
			right = c.n
		case "operator":
			op = c.kind
		}
	}
	if left == nil || right == nil {
		return cval{}, &evalErr{sp, "incomplete expression"}
	}
	// Long chains "a" + "b" + "c" + ... nest to the left; the left operand
	// is the deep one.
	l, err := b.evalDepth(left, ctx, depth+1)
	if err != nil {
		return cval{}, err
	}
	r, err := b.evalDepth(right, ctx, depth+1)
	if err != nil {
		return cval{}, err
	}
	if op == "+" && (l.k == vStr || r.k == vStr) {
		return b.concat(l, r, left, right)
	}
	if l.k == vStr || r.k == vStr || l.k == vBool || r.k == vBool || l.k == vNone || r.k == vNone {
		return cval{}, &evalErr{sp, "operator " + op + " is not supported on these values"}
	}
	v, msg := arith(op, l, r)
	if msg != "" {
		return cval{}, &evalErr{sp, msg}
	}
	return v, nil
}

// concat joins two operands of string concatenation.
func (b *builder) concat(l, r cval, left, right *fnode) (cval, *evalErr) {
	ls, err := b.asString(l, left)
	if err != nil {
		return cval{}, err
	}
	rs, err := b.asString(r, right)
	if err != nil {
		return cval{}, err
	}
	// Every operand's buffer is this evaluation's own (literals are
	// decoded afresh, constants cloned), so the left one grows in
	// place: a chain of n joins costs O(n), not O(n²) (the JDK's
	// GB18030.java joins thousands of literals).
	ls.appendBuf(rs)
	return cval{k: vStr, s: ls}, nil
}

// arith applies a numeric operator with Java's promotion and wrapping; the
// message says why it cannot.
func arith(op string, l, r cval) (cval, string) {
	k := binaryKind(l, r)
	if k == vFloat {
		x, _ := l.float()
		y, _ := r.float()
		switch op {
		case "+":
			return cval{k: vFloat, f: x + y}, ""
		case "-":
			return cval{k: vFloat, f: x - y}, ""
		case "*":
			return cval{k: vFloat, f: x * y}, ""
		case "/":
			return cval{k: vFloat, f: x / y}, ""
		case "%":
			return cval{k: vFloat, f: math.Mod(x, y)}, ""
		}
		return cval{}, "operator " + op + " is not supported on floating-point values"
	}
	x, y := l.i, r.i
	var i int64
	switch op {
	case "+":
		i = x + y
	case "-":
		i = x - y
	case "*":
		i = x * y
	case "/", "%":
		if y == 0 {
			return cval{}, "division by zero"
		}
		if y == -1 { // avoid the MinInt64 / -1 trap; Java wraps
			if op == "/" {
				i = -x
			}
			break
		}
		if op == "/" {
			i = x / y
		} else {
			i = x % y
		}
	case "<<", ">>", ">>>":
		return shift(op, l, x, y), ""
	case "&":
		i = x & y
	case "|":
		i = x | y
	case "^":
		i = x ^ y
	default:
		return cval{}, "operator " + op + " is not supported"
	}
	return cval{k: k, i: wrap(k, i)}, ""
}

// shift shifts x by y; the result's kind is the promoted left operand's
// alone.
func shift(op string, l cval, x, y int64) cval {
	k := vInt
	if l.k == vLong {
		k = vLong
	}
	s := uint(y & 31)
	if k == vLong {
		s = uint(y & 63)
	}
	var i int64
	switch op {
	case "<<":
		i = x << s
	case ">>":
		i = x >> s
	default:
		if k == vInt {
			i = int64(uint32(x) >> s)
		} else {
			i = int64(uint64(x) >> s)
		}
	}
	return cval{k: k, i: wrap(k, i)}
}

// asString converts an operand of string concatenation.
func (b *builder) asString(v cval, n *fnode) (*strBuf, *evalErr) {
	sp := b.span(n)
	switch v.k {
	case vStr, vChar:
		return v.s, nil
	case vInt, vLong:
		t := strconv.FormatInt(v.i, 10)
		return plainBuf(t, sp, kindOf(n) == "decimal_integer_literal" && b.text(n) == t), nil
	case vBool:
		t := "false"
		if v.i != 0 {
			t = "true"
		}
		return plainBuf(t, sp, b.text(n) == t), nil
	case vFloat:
		return nil, &evalErr{sp, "floating-point values cannot be joined to strings here"}
	}
	return nil, &evalErr{sp, "value cannot be joined to a string"}
}

func (b *builder) evalUnary(n *fnode, ctx *Type, depth int) (cval, *evalErr) {
	sp := b.span(n)
	var operand *fnode
	op := ""
	for _, c := range children(n) {
		switch c.field {
		case "operand":
			operand = c.n
		case "operator":
			op = c.kind
		}
	}
	if operand == nil {
		return cval{}, &evalErr{sp, "incomplete expression"}
	}
	v, err := b.evalDepth(operand, ctx, depth+1)
	if err != nil {
		return cval{}, err
	}
	switch {
	case op == "!" && v.k == vBool:
		v.i = 1 - v.i
		return v, nil
	case op == "+" && (v.integral() || v.k == vFloat):
		if v.k == vChar {
			return cval{k: vInt, i: v.i}, nil
		}
		return v, nil
	case op == "-" && v.k == vFloat:
		return cval{k: vFloat, f: -v.f}, nil
	case op == "-" && v.integral():
		k := v.k
		if k == vChar {
			k = vInt
		}
		return cval{k: k, i: wrap(k, -v.i)}, nil
	case op == "~" && v.integral():
		k := v.k
		if k == vChar {
			k = vInt
		}
		return cval{k: k, i: wrap(k, ^v.i)}, nil
	}
	return cval{}, &evalErr{sp, "operator " + op + " is not supported here"}
}

func (b *builder) evalCast(n *fnode, ctx *Type, depth int) (cval, *evalErr) {
	sp := b.span(n)
	var typ, value *fnode
	for _, c := range children(n) {
		switch c.field {
		case "type":
			typ = c.n
		case "value":
			value = c.n
		}
	}
	if typ == nil || value == nil {
		return cval{}, &evalErr{sp, "incomplete cast"}
	}
	v, err := b.evalDepth(value, ctx, depth+1)
	if err != nil {
		return cval{}, err
	}
	return convert(v, b.typeText(typ), sp)
}

// convert applies an assignment or cast conversion to a primitive or
// String type.
func convert(v cval, to string, sp textpos.Span) (cval, *evalErr) {
	bad := &evalErr{sp, "cannot convert the value to " + to}
	switch to {
	case "String", "java.lang.String":
		if v.k != vStr {
			return cval{}, bad
		}
		return v, nil
	case "boolean":
		if v.k != vBool {
			return cval{}, bad
		}
		return v, nil
	case "double", "float":
		f, ok := v.float()
		if !ok {
			return cval{}, bad
		}
		if to == "float" {
			f = float64(float32(f))
		}
		return cval{k: vFloat, f: f}, nil
	case "int", "long", "short", "byte":
		var i int64
		switch {
		case v.integral():
			i = v.i
		case v.k == vFloat:
			i = saturate(v.f, to == "long")
		default:
			return cval{}, bad
		}
		switch to {
		case "long":
			return cval{k: vLong, i: i}, nil
		case "short":
			i = int64(int16(i))
		case "byte":
			i = int64(int8(i))
		}
		return cval{k: vInt, i: int64(int32(i))}, nil
	case "char":
		switch {
		case v.k == vChar:
			return v, nil
		case v.integral():
			c := rune(uint16(v.i))
			if utf16.IsSurrogate(c) {
				c = utf8.RuneError
			}
			return cval{k: vChar, i: int64(uint16(v.i)), s: plainBuf(string(c), sp, false)}, nil
		}
		return cval{}, bad
	}
	return cval{}, bad
}

// saturate converts like Java's d2i / d2l.
func saturate(f float64, long bool) int64 {
	lo, hi := float64(math.MinInt32), float64(math.MaxInt32)
	if long {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	switch {
	case math.IsNaN(f):
		return 0
	case f <= lo:
		return int64(lo)
	case f >= hi:
		if long {
			return math.MaxInt64
		}
		return math.MaxInt32
	}
	return int64(math.Trunc(f))
}

// dottedPath flattens a.b.C (identifiers and field accesses) to "a.b.C".
func (b *builder) dottedPath(n *fnode) (string, bool) {
	switch kindOf(n) {
	case "identifier", "type_identifier":
		return b.text(n), true
	case "field_access", "scoped_identifier", "scoped_type_identifier":
		var parts []string
		for _, c := range children(n) {
			if c.kind == "." {
				continue
			}
			p, ok := b.dottedPath(c.n)
			if !ok {
				return "", false
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, "."), len(parts) > 0
	}
	return "", false
}

// builtinConstants are the JDK constants worth accepting in @Param ranges.
var builtinConstants = map[string]cval{
	"Integer.MAX_VALUE":   {k: vInt, i: math.MaxInt32},
	"Integer.MIN_VALUE":   {k: vInt, i: math.MinInt32},
	"Long.MAX_VALUE":      {k: vLong, i: math.MaxInt64},
	"Long.MIN_VALUE":      {k: vLong, i: math.MinInt64},
	"Short.MAX_VALUE":     {k: vInt, i: math.MaxInt16},
	"Short.MIN_VALUE":     {k: vInt, i: math.MinInt16},
	"Byte.MAX_VALUE":      {k: vInt, i: math.MaxInt8},
	"Byte.MIN_VALUE":      {k: vInt, i: math.MinInt8},
	"Double.MAX_VALUE":    {k: vFloat, f: math.MaxFloat64},
	"Double.MIN_VALUE":    {k: vFloat, f: math.SmallestNonzeroFloat64},
	"Float.MAX_VALUE":     {k: vFloat, f: math.MaxFloat32},
	"Float.MIN_VALUE":     {k: vFloat, f: math.SmallestNonzeroFloat32},
	"Math.PI":             {k: vFloat, f: math.Pi},
	"Math.E":              {k: vFloat, f: math.E},
	"Character.MAX_VALUE": {k: vInt, i: 0xFFFF},
}

// constRef resolves NAME (qual == "") or qual.NAME to a constant declared
// in this file.
func (b *builder) constRef(n *fnode, qual, name string, ctx *Type) (cval, *evalErr) {
	sp := b.span(n)
	full := name
	if qual != "" {
		full = qual + "." + name
	}
	var pc *pconst
	if qual == "" {
		for t := ctx; t != nil && pc == nil; t = t.Outer {
			pc = b.pend[t][name]
		}
	} else {
		if v, ok := builtinConstants[strings.TrimPrefix(full, "java.lang.")]; ok {
			return v, nil
		}
		if t := b.typeByPath(qual, ctx); t != nil {
			pc = b.pend[t][name]
		}
	}
	if pc == nil {
		return cval{}, &evalErr{sp, "cannot resolve " + full + " to a constant declared in this file"}
	}
	if pc.declType != "String" {
		b.numRef = true
		b.abort = b.abort || b.fast
	}
	if pc.state == 0 && b.shared {
		b.abort = true
		return cval{}, &evalErr{sp, "not evaluated"} // the work is done again
	}
	v, err := b.constValue(pc)
	if err != nil {
		return cval{}, &evalErr{sp, full + " is not a compile-time constant: " + err.msg}
	}
	if v.s != nil {
		v.s = v.s.clone(&sp)
	}
	return v, nil
}

// constValue evaluates a constant once; cycles are not constant.
func (b *builder) constValue(pc *pconst) (cval, *evalErr) {
	switch pc.state {
	case 2:
		return pc.val, nil
	case 1, 3:
		msg := "its initializer is not constant"
		if pc.state == 1 {
			msg = "its initializer refers to itself"
		}
		return cval{}, &evalErr{msg: msg}
	}
	if pc.value == nil {
		pc.state = 3
		return cval{}, &evalErr{msg: "no initializer"}
	}
	pc.state = 1
	v, err := b.eval(pc.value, pc.owner)
	if err == nil {
		v, err = convert(v, pc.declType, b.span(pc.value))
	}
	if err != nil {
		pc.state = 3
		return cval{}, err
	}
	pc.state, pc.val = 2, v
	return v, nil
}

// typeByPath finds the named type a qualifier such as "Outer.Inner",
// "Inner" or "pkg.Outer" denotes, preferring types enclosing ctx or members
// of them.
func (b *builder) typeByPath(path string, ctx *Type) *Type {
	var first *Type
	for _, t := range b.f.Types {
		if t.Anonymous {
			continue
		}
		if t.QualifiedName != path && !strings.HasSuffix(t.QualifiedName, "."+path) {
			if !(t.Local && t.Name == path) {
				continue
			}
		}
		for c := ctx; c != nil; c = c.Outer {
			if c == t || c == t.Outer {
				return t
			}
		}
		if first == nil && !t.Local {
			first = t
		}
	}
	return first
}
