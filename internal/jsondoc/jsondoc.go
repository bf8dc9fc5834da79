// Package jsondoc checks what perfls prints with --format json against the
// rules of docs/json.md: every document is an object whose first key is
// format_version (report.FormatVersion), and every key is snake_case.
// Tests of the commands and of the report types use it.
package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/perfls/perfls/analysis/report"
)

// snake is a snake_case key: lower-case letters, digits and underscores.
var snake = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

// DataMaps are the paths (keys joined by ".", list indexes left out) of
// objects whose keys are data, not names of fields: calibrate's model
// environment holds the JVM's property names ("java.vm.name").
var DataMaps = []string{"model.environment"}

// Check reads out, a stream of JSON documents, and returns every breach
// of the rules, each with its document's number and the key's path; nil
// when there are none.
func Check(out []byte) error {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var errs []error
	for n := 1; ; n++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			if n == 1 {
				return errors.New("no JSON document")
			}
			return errors.Join(errs...)
		}
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("document %d: %w", n, err))...)
		}
		if err := checkDocument(raw); err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", n, err))
		}
	}
}

func checkDocument(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, _ := dec.Token(); t != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	var version json.Number
	if k, _ := dec.Token(); k != report.FormatVersionKey || dec.Decode(&version) != nil || version.String() != fmt.Sprint(report.FormatVersion) {
		return fmt.Errorf("the first key is not %q: %d", report.FormatVersionKey, report.FormatVersion)
	}
	return Keys(raw)
}

// Keys returns every key of the JSON value raw that is not snake_case,
// with its path, outside DataMaps; nil when there is none.
func Keys(raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	var bad []string
	walk(v, nil, &bad)
	if len(bad) > 0 {
		slices.Sort(bad)
		bad = slices.Compact(bad)
		return fmt.Errorf("keys not in snake_case: %s", strings.Join(bad, ", "))
	}
	return nil
}

func walk(v any, path []string, bad *[]string) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			walk(e, path, bad)
		}
	case map[string]any:
		data := slices.Contains(DataMaps, strings.Join(path, "."))
		for k, e := range v {
			p := append(slices.Clip(path), k)
			if !data && !snake.MatchString(k) {
				*bad = append(*bad, strings.Join(p, "."))
			}
			walk(e, p, bad)
		}
	}
}

// Fields returns every key the Go type of v can write to JSON that is not
// snake_case — a field's tag or, without one, its name — in v's type and
// every type it holds, omitempty fields and custom encoders' structs
// included; nil when there is none. Keys of maps are data: Keys checks the
// ones a document holds.
func Fields(v any) error {
	var bad []string
	for _, f := range fieldsOf(v) {
		if !snake.MatchString(f.name) {
			bad = append(bad, f.owner+"."+f.name)
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return fmt.Errorf("keys not in snake_case: %s", strings.Join(slices.Compact(bad), ", "))
	}
	return nil
}

// FieldNames are the distinct keys the Go type of v can write (as Fields
// finds them), sorted: docs/json.md's inventory counts them.
func FieldNames(v any) []string {
	var names []string
	for _, f := range fieldsOf(v) {
		names = append(names, f.name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// field is one key and the type that holds it.
type field struct{ owner, name string }

func fieldsOf(v any) []field {
	var out []field
	fields(reflect.TypeOf(v), map[reflect.Type]bool{}, &out)
	return out
}

func fields(t reflect.Type, seen map[reflect.Type]bool, out *[]field) {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
			continue
		case f.Anonymous && name == "":
			fields(f.Type, seen, out) // its fields are the outer object's
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		*out = append(*out, field{t.String(), name})
		fields(f.Type, seen, out)
	}
}
