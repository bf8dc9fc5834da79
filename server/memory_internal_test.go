package server

import "testing"

// A stopped releaser schedules nothing: no timer outlives the server.
func TestReleaserStop(t *testing.T) {
	var r releaser
	r.schedule()
	if r.timer == nil {
		t.Fatal("schedule set no timer")
	}
	r.stop()
	if r.timer.Stop() {
		t.Error("the timer was still pending after stop")
	}
	first := r.timer
	r.schedule()
	if r.timer != first || r.timer.Stop() {
		t.Error("schedule after stop armed a timer")
	}
}
