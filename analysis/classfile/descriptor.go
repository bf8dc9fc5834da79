package classfile

import (
	"fmt"
	"strings"
)

// MethodDescriptor turns a method descriptor (JVMS 4.3.3) into Java source
// types: "(I[Ljava/lang/String;Ljava/util/Map$Entry;)V" gives
// ["int", "java.lang.String[]", "java.util.Map.Entry"] and "void". Nested
// classes are written with dots, as source does.
func MethodDescriptor(desc string) (params []string, ret string, err error) {
	if !strings.HasPrefix(desc, "(") {
		return nil, "", fmt.Errorf("descriptor %q does not start with (", desc)
	}
	i := 1
	params = []string{}
	for i < len(desc) && desc[i] != ')' {
		t, n, err := FieldType(desc[i:])
		if err != nil {
			return nil, "", fmt.Errorf("descriptor %q: %w", desc, err)
		}
		params = append(params, t)
		i += n
	}
	if i >= len(desc) {
		return nil, "", fmt.Errorf("descriptor %q has no )", desc)
	}
	i++
	if desc[i:] == "V" {
		return params, "void", nil
	}
	ret, n, err := FieldType(desc[i:])
	if err != nil || i+n != len(desc) {
		return nil, "", fmt.Errorf("descriptor %q: bad return type", desc)
	}
	return params, ret, nil
}

// FieldType reads one field type (JVMS 4.3.2) at the start of s, e.g.
// "[[Ljava/util/Map$Entry;", and returns it as a Java source type
// ("java.util.Map.Entry[][]") with the number of bytes it took.
func FieldType(s string) (string, int, error) {
	dims := 0
	for dims < len(s) && s[dims] == '[' {
		dims++
	}
	if dims > 255 {
		return "", 0, fmt.Errorf("more than 255 array dimensions")
	}
	if dims >= len(s) {
		return "", 0, fmt.Errorf("truncated type")
	}
	var base string
	n := dims + 1
	switch s[dims] {
	case 'B':
		base = "byte"
	case 'C':
		base = "char"
	case 'D':
		base = "double"
	case 'F':
		base = "float"
	case 'I':
		base = "int"
	case 'J':
		base = "long"
	case 'S':
		base = "short"
	case 'Z':
		base = "boolean"
	case 'L':
		end := strings.IndexByte(s[dims:], ';')
		if end < 2 {
			return "", 0, fmt.Errorf("unterminated class type")
		}
		base = SourceName(s[dims+1 : dims+end])
		n = dims + end + 1
	default:
		return "", 0, fmt.Errorf("unknown type %q", s[dims])
	}
	return base + strings.Repeat("[]", dims), n, nil
}

// SourceName turns an internal or binary class name into its canonical
// source form: "java/util/Map$Entry" gives "java.util.Map.Entry". A "$"
// that begins a name segment or is doubled is kept (generated classes use
// it in simple names); names are compared by their last segment anyway.
func SourceName(internal string) string {
	s := []byte(strings.ReplaceAll(internal, "/", "."))
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '$' && s[i-1] != '.' && s[i-1] != '$' && s[i+1] != '$' {
			s[i] = '.'
		}
	}
	return string(s)
}
