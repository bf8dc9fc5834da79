package profile

import (
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
)

// Declaration is one type or method declaration of the project's sources.
// The caller builds the list (Declarations does it for a javasrc.File);
// frames of classes that no declaration names are library (or JDK) frames.
type Declaration struct {
	File string // the source file, as shown to the user
	// Class is the binary name of the declaring class as the class file
	// names it: "pkg.Outer$Inner", "pkg.Outer$1" for an anonymous class.
	Class string
	// Method is the method's simple name, "<init>" for a constructor, ""
	// for the declaration of the type itself.
	Method string
	// Params are the erased parameter types as written ("int[]", "List",
	// "java.util.Map.Entry", varargs as arrays); nil for a type.
	Params []string
	// StartLine and EndLine (1-based, inclusive) cover the whole
	// declaration; NameLine is the line of its name.
	StartLine, EndLine, NameLine int
}

// Declarations lists the types and methods of f, with file as the path to
// show. Lines are 1-based.
func Declarations(f *javasrc.File, file string) []Declaration {
	if f == nil || f.Mapper == nil {
		return nil
	}
	line := func(offset int) int { return f.Mapper.Position(offset).Line + 1 }
	var out []Declaration
	for _, t := range f.Types {
		if t.BinaryName == "" {
			continue
		}
		out = append(out, Declaration{File: file, Class: t.BinaryName,
			StartLine: line(t.Span.Start), EndLine: line(max(t.Span.End-1, t.Span.Start)), NameLine: line(t.NameSpan.Start)})
	}
	for _, m := range f.Methods {
		if m.Type == nil || m.Type.BinaryName == "" {
			continue
		}
		params := make([]string, len(m.Params))
		for i, p := range m.Params {
			params[i] = p.Erased
		}
		out = append(out, Declaration{File: file, Class: m.Type.BinaryName, Method: m.Name, Params: params,
			StartLine: line(m.Span.Start), EndLine: line(max(m.Span.End-1, m.Span.Start)), NameLine: line(m.NameSpan.Start)})
	}
	return out
}

// attribution maps the summary's methods and frames to declarations.
type attribution struct {
	decls []Declaration
	// methodDecl[m] is the declaration of method m matched by class, name
	// and erased parameter types; -1 when none.
	methodDecl []int
	// frameDecl[f] is the method declaration frame f lies in: its
	// method's, or for a method no declaration matches (lambda bodies,
	// compiler-generated methods, field initialisers in constructors) the
	// innermost method declaration of the class whose lines hold the
	// frame's line; -1 when none.
	frameDecl []int
	// project[m] is true when method m's class is declared in the project.
	project []bool
	// classFile[m] is the file declaring method m's class ("" for library
	// classes).
	classFile []string
}

func attribute(s *Summary, decls []Declaration) *attribution {
	a := &attribution{decls: decls,
		methodDecl: make([]int, len(s.Methods)), frameDecl: make([]int, len(s.Frames)),
		project: make([]bool, len(s.Methods)), classFile: make([]string, len(s.Methods))}
	byClass := map[string][]int{}
	for i, d := range decls {
		byClass[d.Class] = append(byClass[d.Class], i)
	}
	for mi, m := range s.Methods {
		a.methodDecl[mi] = -1
		ds, ok := byClass[m.Class]
		if !ok {
			continue
		}
		a.project[mi] = true
		a.classFile[mi] = decls[ds[0]].File
		params, okDesc := ParamTypes(m.Descriptor)
		if !okDesc {
			continue
		}
		for _, di := range ds {
			d := decls[di]
			if d.Method != "" && d.Method == m.Name && paramsMatch(d.Params, params) {
				a.methodDecl[mi] = di
				break
			}
		}
	}
	for fi, f := range s.Frames {
		a.frameDecl[fi] = a.methodDecl[f.Method]
		if a.frameDecl[fi] >= 0 || !a.project[f.Method] || f.Line <= 0 {
			continue
		}
		best := -1
		for _, di := range byClass[s.Methods[f.Method].Class] {
			d := decls[di]
			if d.Method == "" || f.Line < d.StartLine || f.Line > d.EndLine {
				continue
			}
			if best < 0 || d.EndLine-d.StartLine < decls[best].EndLine-decls[best].StartLine {
				best = di
			}
		}
		a.frameDecl[fi] = best
	}
	return a
}

// ParamsMatch is paramsMatch for other packages: whether parameter types
// as declared in the source name a class file's (counting forks match
// their counters to methods with it, as profiles match frames).
func ParamsMatch(declared, actual []string) bool { return paramsMatch(declared, actual) }

// paramsMatch reports whether the declared (erased, as written) parameter
// types name the descriptor's types: same count, same array dimensions,
// primitives equal, and a reference type written either fully qualified or
// as a suffix at a name boundary ("List" and "util.List" name
// "java.util.List"; "Entry" and "Map.Entry" name "java.util.Map.Entry").
func paramsMatch(declared, actual []string) bool {
	if len(declared) != len(actual) {
		return false
	}
	for i := range declared {
		if !typeMatches(declared[i], actual[i]) {
			return false
		}
	}
	return true
}

func typeMatches(declared, actual string) bool {
	declared = strings.ReplaceAll(strings.Join(strings.Fields(declared), ""), "$", ".")
	if strings.HasSuffix(declared, "...") {
		declared = strings.TrimSuffix(declared, "...") + "[]"
	}
	for strings.HasSuffix(declared, "[]") && strings.HasSuffix(actual, "[]") {
		declared, actual = declared[:len(declared)-2], actual[:len(actual)-2]
	}
	if strings.HasSuffix(declared, "[]") || strings.HasSuffix(actual, "[]") {
		return false
	}
	return declared == actual || strings.HasSuffix(actual, "."+declared)
}
