package javasrc

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/perfls/perfls/analysis/textpos"
)

// Files that are not Java source, or too large to be worth parsing, are
// not given to tree-sitter: on binary input its error recovery takes
// minutes per megabyte, and a parse cannot be interrupted between nodes
// by anything but a context. Their model is empty and File.Skipped says
// why; the diagnostics layer (workspace.JavaFormulas) reports it.

// MaxSourceBytes is the largest .java file Parse and Doc.Update parse. The
// largest hand-written Java files are a few hundred kilobytes; generated
// ones past 4 MiB (parser tables, embedded data) hold no formulas worth
// the seconds and hundreds of megabytes a parse would cost.
const MaxSourceBytes = 4 << 20

// SniffBytes is how much of a file's start is examined for binary content.
const SniffBytes = 8 << 10

// Skipped says why a file was not parsed.
type Skipped struct {
	// Span locates the cause: the first byte that is not text, or the
	// file's start for a file that is too large.
	Span    textpos.Span
	Message string
	// Binary is set for content that is not text; otherwise the file was
	// too large.
	Binary bool
}

// Examine tells whether a file of size bytes that starts with head (its
// first SniffBytes bytes, or all of it when shorter; more is ignored) is
// parsed; nil means it is. A file is binary when head holds a NUL byte,
// or is not valid UTF-8 and holds a control character: legacy 8-bit
// encodings (ISO-8859-1, windows-1252) are not valid UTF-8 either, but
// their text has no control characters, and random bytes always have.
// U+FFFD counts as invalid: it is what an editor sends for the bytes it
// could not decode.
func Examine(size int64, head []byte) *Skipped {
	if len(head) > SniffBytes {
		head = head[:SniffBytes]
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return binaryAt(i)
	}
	if bad := invalidUTF8(head, int64(len(head)) < size); bad >= 0 {
		if ctl := controlChar(head); ctl >= 0 {
			return binaryAt(min(bad, ctl))
		}
	}
	if size > MaxSourceBytes {
		return &Skipped{Message: fmt.Sprintf("%.1f MB: larger than the %d MiB limit, not parsed", float64(size)/1e6, MaxSourceBytes>>20)}
	}
	return nil
}

func binaryAt(i int) *Skipped {
	return &Skipped{Span: textpos.Span{Start: i, End: i + 1}, Message: "binary file: not parsed", Binary: true}
}

// invalidUTF8 returns the offset of the first byte of b that is not
// valid UTF-8 or starts U+FFFD, -1 when none. With cut, b is a prefix of
// the file, and a sequence cut short at its end is not counted.
func invalidUTF8(b []byte, cut bool) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError {
			if n == 1 && cut && !utf8.FullRune(b[i:]) {
				return -1
			}
			return i
		}
		i += n
	}
	return -1
}

// controlChar returns the offset of the first C0 control character other
// than the whitespace Java allows (tab, line feed, form feed, carriage
// return) and SUB (a DOS end-of-file mark javac accepts), -1 when none.
func controlChar(b []byte) int {
	for i, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r' && c != 0x1a {
			return i
		}
	}
	return -1
}

// NotParsed returns the empty model of a file that was not parsed, for
// a caller that examined its start (head) without reading all of it.
func NotParsed(path string, head []byte, why *Skipped) *File {
	text := string(head)
	return &File{Path: path, Src: text, Mapper: textpos.NewMapper(text), Skipped: why}
}
