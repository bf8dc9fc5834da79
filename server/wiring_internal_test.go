package server

import (
	"reflect"
	"testing"
)

// The server struct keeps wiring only (issue 37): state belongs to the
// session (package session), the jobs to their queue, the client's side
// to its view. A feature that needs a field adds it there.
func TestServerStructIsWiring(t *testing.T) {
	const most = 15
	typ := reflect.TypeFor[server]()
	if n := typ.NumField(); n > most {
		var names []string
		for i := range n {
			names = append(names, typ.Field(i).Name)
		}
		t.Errorf("server has %d fields, at most %d: %v", n, most, names)
	}
}
