package measure

import (
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/measured"
)

// ParseArgs reads comma-separated arguments: integers, or strings, bare
// (abc) or quoted with ' or " ('a, b' keeps its comma and spaces; a quote
// inside is written twice). An unterminated quote runs to the end.
func ParseArgs(s string) []measured.Arg {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []measured.Arg
	for _, f := range splitArgs(s) {
		if f.quoted {
			out = append(out, measured.StringArg(f.text))
			continue
		}
		if v, err := strconv.ParseInt(f.text, 10, 64); err == nil {
			out = append(out, measured.IntArg(v))
			continue
		}
		out = append(out, measured.StringArg(f.text))
	}
	return out
}

// ArgsKey spells arguments as measurement and oracle keys do: "1000",
// `"a",5`.
func ArgsKey(args []measured.Arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	return strings.Join(parts, ",")
}

type argField struct {
	text   string
	quoted bool
}

// splitArgs splits at commas outside quotes.
func splitArgs(s string) []argField {
	var out []argField
	var cur strings.Builder
	var quote rune
	quoted := false
	flush := func() {
		text := cur.String()
		if !quoted {
			text = strings.TrimSpace(text)
		}
		out = append(out, argField{text, quoted})
		cur.Reset()
		quoted = false
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0 && r == quote && i+1 < len(rs) && rs[i+1] == quote:
			cur.WriteRune(r) // a doubled quote stands for itself
			i++
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case (r == '\'' || r == '"') && strings.TrimSpace(cur.String()) == "":
			cur.Reset()
			quote, quoted = r, true
		case r == ',':
			flush()
		default:
			if !quoted || r != ' ' {
				cur.WriteRune(r)
			}
		}
	}
	flush()
	return out
}
