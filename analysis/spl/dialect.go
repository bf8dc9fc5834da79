package spl

import "strings"

// CodeEvaluationDialect marks a formula written in the grammar of
// spl-evaluation-java / spl-java (FormulaParser.jj), whose operands name
// data sources or revisions rather than measured methods.
const CodeEvaluationDialect = "evaluation-dialect"

// EvaluationDialectMessage says how to write an evaluation-engine formula
// in perfls SPL.
const EvaluationDialectMessage = "this is the spl-evaluation-java formula dialect, where operands name data sources or revisions (\"bench:last < ver2 && ver2 < ver3\"); perfls SPL compares measured methods on a workload: write e.g. SELF[gen](n) < pkg.Class#method[gen](n), with & | ==> (or and, or, implies) instead of && || =>"

// evaluationDialect recognises text that is a formula of the evaluation
// engine's grammar and not of SPL: an optional "benchmark:" prefix, then
// only identifiers, numbers, "<", ">", "&&", "||", "=>" and parentheses,
// with at least one comparison and at least one feature SPL lacks (the
// prefix, "&&", "||", "=>" or a numeric constant operand). It returns the
// span of the formula.
func evaluationDialect(src string) (Span, bool) {
	start := len(src) - len(strings.TrimLeft(src, " \t\r\n"))
	end := len(strings.TrimRight(src, " \t\r\n"))
	if start >= end {
		return Span{}, false
	}
	s := src[start:end]
	foreign, cmp := false, false
	// "pkg.Bench.method:" prefix.
	if i := strings.IndexByte(s, ':'); i > 0 && (i+1 >= len(s) || s[i+1] != '=') {
		head := s[:i]
		for j := 0; j < len(head); j++ {
			c := head[j]
			if !(c == '.' || c == '_' || c == '$' || isASCIIAlnum(c)) {
				return Span{}, false
			}
		}
		s = s[i+1:]
		foreign = true
	}
	prevOperand := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||") || strings.HasPrefix(s[i:], "=>"):
			foreign = true
			prevOperand = false
			i += 2
		case c == '<' || c == '>':
			if i+1 < len(s) && s[i+1] == '=' {
				return Span{}, false // SPL's sign, not the engine's
			}
			cmp = true
			prevOperand = false
			i++
		case c == '(' || c == ')':
			i++
		case c >= '0' && c <= '9' || c == '.':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
				i++
			}
			foreign = true // a constant operand
			prevOperand = true
		case isASCIIAlnum(c) || c == '_':
			if prevOperand {
				return Span{}, false // two operands in a row: not this grammar
			}
			j := i
			for j < len(s) && (isASCIIAlnum(s[j]) || s[j] == '_') {
				j++
			}
			if w := s[i:j]; w == "and" || w == "or" || w == "implies" {
				return Span{}, false
			}
			i = j
			prevOperand = true
		default:
			return Span{}, false
		}
	}
	if !cmp || !foreign {
		return Span{}, false
	}
	return Span{start, end}, true
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
