//go:build !linux

package measure

import "errors"

var errNoPinning = errors.New("pinning a thread to processors needs Linux (sched_setaffinity); on this system leave the processor list empty")

func pinThread(int, int, []int) error { return errNoPinning }

func allowedCPUs() ([]int, error) { return nil, errNoPinning }
