package input

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"cpu":                      `"cpu"`,
		"\x1b[31mred\x1b[0m":       `"\x1b[31mred\x1b[0m"`,
		strings.Repeat("a", 70):    `"` + strings.Repeat("a", 64) + `"… (6 bytes more)`,
		strings.Repeat("é", 40):    `"` + strings.Repeat("é", 32) + `"… (16 bytes more)`,
		"tab\there, \u202egnp.exe": `"tab\there, \u202egnp.exe"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := Quote(strings.Repeat("x", 5<<20)); len(got) > 100 {
		t.Errorf("a 5 MB cell quoted in %d bytes", len(got))
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain \"text\" with \\ and é": "plain \"text\" with \\ and é",
		"two\nlines\tand a tab":        "two\nlines\tand a tab",
		"\x1b]0;title\x07":             `\x1b]0;title\a`,
		"csi \u009b2J and \x9b":        `csi \u009b2J and \x9b`,
		"\u202eevil":                   `\u202eevil`,
		"\r\x00":                       `\r\x00`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 16 << 20: "16 MiB", 1 << 40: "1 TiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
