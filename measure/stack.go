package measure

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/measured"
)

// parseFrame parses a stack line "\tat pkg.Cls.m(File.java:12)", also in the
// forms with a module or class loader prefix ("java.base/java.util.X.m(...)",
// "app//pkg.Cls.m(...)") and with a module inside the parentheses (thread
// dumps: "pkg.Cls.m(java.base@17/Native Method)"). jdk reports a module
// prefix, which marks a class of a named module.
func parseFrame(line string) (f measured.Frame, jdk bool, ok bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "at ") {
		return measured.Frame{}, false, false
	}
	s = strings.TrimSpace(s[3:])
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return measured.Frame{}, false, false
	}
	name, loc := s[:open], s[open+1:len(s)-1]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		prefix := name[:i]
		name = name[i+1:]
		// "app//x" has an empty module part; "java.base/x" or "mod@1/x" names a module.
		mod := prefix
		if j := strings.IndexByte(prefix, '/'); j >= 0 {
			mod = prefix[j+1:]
		}
		jdk = mod != ""
	}
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 {
		return measured.Frame{}, false, false
	}
	f.Class, f.Method = name[:dot], name[dot+1:]
	if i := strings.LastIndexByte(loc, '/'); i >= 0 {
		loc = loc[i+1:]
	}
	if file, line, found := strings.Cut(loc, ":"); found {
		f.File = file
		f.Line, _ = strconv.Atoi(line)
	} else if strings.HasSuffix(loc, ".java") || strings.HasSuffix(loc, ".kt") {
		f.File = loc
	}
	return f, jdk, true
}

// isUserFrame reports whether a frame belongs to user code: not the JDK, not
// perfls.
func isUserFrame(f measured.Frame, jdk bool) bool {
	if jdk {
		return false
	}
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "com.sun.", "dev.perfls."} {
		if strings.HasPrefix(f.Class, p) {
			return false
		}
	}
	simple := f.Class[strings.LastIndexByte(f.Class, '.')+1:]
	return !strings.HasPrefix(simple, "PerflsHarness_")
}

// throwableInfo is what parseStackTrace extracts from a printed throwable.
type throwableInfo struct {
	exception, message string
	rootException      string
	rootMessage        string
	frame              *measured.Frame
}

// parseStackTrace reads a Throwable.printStackTrace text. The frame is the
// first user frame of the innermost cause that has one (where the problem
// arose), else of the throwable itself.
func parseStackTrace(trace string) throwableInfo {
	var info throwableInfo
	type segment struct {
		exc, msg string
		user     *measured.Frame
	}
	var segs []segment
	lines := strings.Split(strings.ReplaceAll(trace, "\r\n", "\n"), "\n")
	startSeg := func(head string) {
		exc, msg, _ := strings.Cut(head, ": ")
		segs = append(segs, segment{exc: strings.TrimSpace(exc), msg: msg})
	}
	inFrames := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case i == 0:
			startSeg(t)
		case strings.HasPrefix(t, "Caused by: "):
			startSeg(strings.TrimPrefix(t, "Caused by: "))
			inFrames = false
		case strings.HasPrefix(t, "Suppressed: "):
			// frames of suppressed exceptions do not say where this failed
			segs = append(segs, segment{exc: "\x00suppressed"})
			inFrames = false
		case strings.HasPrefix(t, "at "):
			inFrames = true
			f, jdk, ok := parseFrame(t)
			if ok && len(segs) > 0 && segs[len(segs)-1].user == nil && isUserFrame(f, jdk) {
				ff := f
				segs[len(segs)-1].user = &ff
			}
		case strings.HasPrefix(t, "..."):
		default:
			// continuation of a multi-line message
			if !inFrames && len(segs) > 0 && t != "" {
				segs[len(segs)-1].msg += "\n" + l
			}
		}
	}
	var real []segment
	for _, s := range segs {
		if s.exc != "\x00suppressed" {
			real = append(real, s)
		}
	}
	if len(real) == 0 {
		return info
	}
	info.exception, info.message = real[0].exc, real[0].msg
	last := real[len(real)-1]
	info.rootException, info.rootMessage = last.exc, last.msg
	for i := len(real) - 1; i >= 0; i-- {
		if real[i].user != nil {
			info.frame = real[i].user
			break
		}
	}
	return info
}

// parseFrames returns the frames of a stack text.
func parseFrames(text string) []measured.Frame {
	var out []measured.Frame
	for _, l := range strings.Split(text, "\n") {
		if f, _, ok := parseFrame(l); ok {
			out = append(out, f)
		}
	}
	return out
}

// firstUserFrame returns the first user frame of a stack text.
func firstUserFrame(text string) *measured.Frame {
	for _, l := range strings.Split(text, "\n") {
		if f, jdk, ok := parseFrame(l); ok && isUserFrame(f, jdk) {
			return &f
		}
	}
	return nil
}

// mainThreadStack extracts the "main" thread's stack from a HotSpot thread
// dump.
func mainThreadStack(dump string) string {
	lines := strings.Split(dump, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, `"main" `) {
			continue
		}
		var b strings.Builder
		b.WriteString(l + "\n")
		for _, m := range lines[i+1:] {
			if strings.TrimSpace(m) == "" {
				break
			}
			b.WriteString(m + "\n")
		}
		return b.String()
	}
	return ""
}

// locate fills f.Path from the source roots.
func locate(f *measured.Frame, roots []string) {
	if f == nil || f.File == "" || filepath.Base(f.File) != f.File {
		return
	}
	dir := filepath.FromSlash(strings.ReplaceAll(packageOf(f.Class), ".", "/"))
	for _, r := range roots {
		p := filepath.Join(r, dir, f.File)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			f.Path = p
			return
		}
	}
}
