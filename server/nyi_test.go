package server

import (
	"os"
	"os/exec"
	"testing"
)

// TestNyiIsGenerated: nyi.go is what its generator writes for the pinned
// protocol.Server (go generate ./server rewrites it).
func TestNyiIsGenerated(t *testing.T) {
	want, err := exec.Command("go", "run", "./internal/gennyi").Output()
	if err != nil {
		t.Fatalf("go run ./internal/gennyi: %v", err)
	}
	got, err := os.ReadFile("nyi.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("nyi.go differs from what ./internal/gennyi writes: run go generate ./server")
	}
}
