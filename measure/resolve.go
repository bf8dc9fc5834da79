package measure

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
)

// Resolve finds the methods specs name, in one JVM run over the build's
// classpath. Classes are loaded without initialisation, so no user code runs.
// The result slices are parallel to specs: errs[i] is nil when specs[i]
// resolved.
func Resolve(ctx context.Context, b *Build, specs []methodspec.Spec) ([]measured.Resolved, []error) {
	res := make([]measured.Resolved, len(specs))
	errs := make([]error, len(specs))
	if len(specs) == 0 {
		return res, errs
	}
	failAll := func(err error) ([]measured.Resolved, []error) {
		for i := range errs {
			errs[i] = fmt.Errorf("resolve %s: %w", specs[i], err)
		}
		return res, errs
	}
	if b == nil {
		return failAll(errors.New("no build"))
	}
	j, err := findJDK(ctx)
	if err != nil {
		return failAll(err)
	}
	classpath, err := runtimeClasspath(ctx, j, b)
	if err != nil {
		return failAll(err)
	}
	input, pending := resolverInput(specs, errs)
	if pending == 0 {
		return res, errs
	}
	dir, err := os.MkdirTemp("", "perfls-resolve-")
	if err != nil {
		return failAll(err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "specs.txt")
	if err := os.WriteFile(in, []byte(input), 0o644); err != nil {
		return failAll(err)
	}
	args := []string{"-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss4m",
		"-cp", strings.Join(classpath, string(os.PathListSeparator)), "dev.perfls.internal.Resolver", in}
	out, err := runTool(ctx, j.java, args, dir, 8<<20)
	if ctx.Err() != nil {
		return failAll(ctx.Err())
	}
	seen := readResolverOutput(out, specs, res, errs)
	for i := range specs {
		if errs[i] == nil && !seen[i] {
			msg := "the resolver JVM did not answer"
			if err != nil {
				msg = fmt.Sprintf("the resolver JVM failed (%v): %s", err, lastLines(out, 10))
			}
			errs[i] = fmt.Errorf("resolve %s: %s", specs[i], msg)
		}
	}
	return res, errs
}

// resolverInput is the resolver's input for specs, one line per spec that
// names a method (the others get their error in errs), and how many lines it
// holds.
func resolverInput(specs []methodspec.Spec, errs []error) (string, int) {
	var input strings.Builder
	pending := 0
	for i, s := range specs {
		if err := checkSpec(s); err != nil {
			errs[i] = fmt.Errorf("resolve %s: %w", s, err)
			continue
		}
		params := "*"
		if s.Params != nil {
			norm := make([]string, len(s.Params))
			for k, p := range s.Params {
				norm[k] = eraseTypeName(p)
			}
			params = strings.Join(norm, ",")
		}
		fmt.Fprintf(&input, "%d\t%s\t%s\t%s\n", i, strings.TrimSpace(s.Class), strings.TrimSpace(s.Name), params)
		pending++
	}
	return input.String(), pending
}

// readResolverOutput fills res and errs from the resolver's answers in out;
// it reports which specs were answered.
func readResolverOutput(out string, specs []methodspec.Spec, res []measured.Resolved, errs []error) []bool {
	seen := make([]bool, len(specs))
	for _, line := range strings.Split(out, "\n") {
		kind, rest, ok := strings.Cut(line, " ")
		if !ok || (kind != "perfls-resolved" && kind != "perfls-unresolved") {
			continue
		}
		f := strings.Split(rest, "\t")
		i, perr := strconv.Atoi(f[0])
		if perr != nil || i < 0 || i >= len(specs) {
			continue
		}
		seen[i] = true
		if kind == "perfls-unresolved" {
			msg := ""
			if len(f) > 1 {
				msg = unescape(f[1])
			}
			errs[i] = fmt.Errorf("resolve %s: %s", specs[i], msg)
			continue
		}
		if len(f) != 7 {
			errs[i] = fmt.Errorf("resolve %s: malformed resolver output %q", specs[i], line)
			continue
		}
		r := measured.Resolved{Class: f[1], Name: f[2], Static: f[3] == "1", ReturnType: f[5], DeclaringClass: f[6]}
		r.ParamTypes = []string{}
		if f[4] != "" {
			r.ParamTypes = strings.Split(f[4], ",")
		}
		res[i] = r
	}
	return seen
}

func checkSpec(s methodspec.Spec) error {
	if strings.TrimSpace(s.Class) == "" {
		return errors.New("no class given")
	}
	if strings.TrimSpace(s.Name) == "" {
		return errors.New("no method name given")
	}
	if strings.ContainsAny(s.Class+s.Name+strings.Join(s.Params, ""), "\t\n\r") {
		return errors.New("control characters in the method name")
	}
	return nil
}

// eraseTypeName normalises a written type for the resolver: type
// annotations and "final" removed, then methodspec.Erasure (no type
// arguments or white space, "$" as "." — the resolver reads both —
// varargs as an array: "int..." → "int[]").
func eraseTypeName(t string) string {
	s := strings.TrimSpace(t)
	for {
		if strings.HasPrefix(s, "@") {
			sc := &javaScanner{src: s, pos: 1}
			sc.skipSpace()
			sc.qualified()
			sc.skipSpace()
			if !sc.eof() && sc.peek() == '(' {
				sc.skipParens()
			}
			s = strings.TrimSpace(s[sc.pos:])
			continue
		}
		if strings.HasPrefix(s, "final") && len(s) > 5 && !isIdentByte(s[5]) {
			s = strings.TrimSpace(s[5:])
			continue
		}
		return methodspec.Erasure(s)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
