package engine

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfls/perfls/internal/atomicfile"
	"github.com/perfls/perfls/internal/input"
)

// noticesFile remembers, in the cache directory, which notices were
// printed: one line per notice, a hash of its project and text and when it
// was last shown. A run that would print the same notice again (a cached
// check repeats the drift warnings of the same stored forks) prints one
// line saying how many it left out; a notice whose text changed is new.
// JSON output keeps every notice whatever was shown.
const noticesFile = "notices-shown"

// maxRemembered bounds the file: the oldest are forgotten (and shown
// again once) beyond it.
const maxRemembered = 2000

// noticeKey is the remembered form of a notice about project.
func noticeKey(project, text string) string {
	h := sha256.Sum256([]byte(project + "\x00" + text))
	return hex.EncodeToString(h[:12])
}

// NoticesToShow are the notices about project a command should print —
// all with all (-v), else those not shown before as they read now — and how
// many it leaves out; it remembers them all in cacheDir. A cache directory
// it cannot read or write ("" included) costs nothing but repeated notices.
func NoticesToShow(cacheDir, project string, all bool, ns []string) (show []string, left int) {
	if len(ns) == 0 {
		return nil, 0
	}
	seen := readShown(cacheDir)
	now := time.Now().Unix()
	for _, n := range ns {
		k := noticeKey(project, n)
		if _, ok := seen[k]; ok && !all && cacheDir != "" {
			left++
		} else {
			show = append(show, n)
		}
		seen[k] = now
	}
	if cacheDir != "" {
		writeShown(cacheDir, seen)
	}
	return show, left
}

// noticesLimit bounds the remembered notices' file: at most 2000 lines of
// a key and a time.
var noticesLimit = input.Limit{Max: 1 << 20, What: "perfls's file of notices shown", Hint: "delete it: notices are then shown once more"}

// readShown reads the remembered notices: key → when last shown.
func readShown(cacheDir string) map[string]int64 {
	seen := map[string]int64{}
	if cacheDir == "" {
		return seen
	}
	data, err := input.ReadRegular(filepath.Join(cacheDir, noticesFile), noticesLimit)
	if err != nil {
		return seen
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, t, ok := strings.Cut(sc.Text(), " ")
		if at, err := strconv.ParseInt(t, 10, 64); ok && err == nil && len(k) == 24 {
			seen[k] = at
		}
	}
	return seen
}

// writeShown keeps the newest maxRemembered entries.
func writeShown(cacheDir string, seen map[string]int64) {
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		if seen[x] != seen[y] {
			return int(seen[y] - seen[x])
		}
		return strings.Compare(x, y)
	})
	var b strings.Builder
	for _, k := range keys[:min(len(keys), maxRemembered)] {
		fmt.Fprintf(&b, "%s %d\n", k, seen[k])
	}
	_ = atomicfile.Write(filepath.Join(cacheDir, noticesFile), []byte(b.String()), 0o600) // only costs repeated notices
}
