package server

import (
	"runtime/debug"
	"sync"
	"time"
)

// Analysing a large document allocates many times its size (the text
// arrives in a JSON message, formulas are decoded byte by byte, then
// lexed and parsed), and the Go runtime keeps the freed memory mapped
// until a collection that may be minutes away: after a 10 MB formula an
// idle server stayed at gigabytes. Once the server has been quiet for
// releaseDelay after analysing a large document, it returns that memory
// to the operating system.

const (
	largeDocument = 256 << 10 // bytes of text
	releaseDelay  = time.Second
)

// releaser runs debug.FreeOSMemory once, releaseDelay after the last
// schedule. The server owns it and stops it on shutdown and when the
// connection ends.
type releaser struct {
	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

func (r *releaser) schedule() {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.stopped:
	case r.timer == nil:
		r.timer = time.AfterFunc(releaseDelay, debug.FreeOSMemory)
	default:
		r.timer.Reset(releaseDelay)
	}
}

func (r *releaser) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	if r.timer != nil {
		r.timer.Stop()
	}
}
