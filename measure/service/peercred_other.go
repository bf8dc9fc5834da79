//go:build unix && !linux && !darwin && !freebsd

package service

import "errors"

const peerCredSupported = false

// peerCredentials is not implemented here: the socket directory's mode is
// the only guard.
func peerCredentials(int) (peerCred, error) {
	return peerCred{}, errors.ErrUnsupported
}
