package revision

// Clones that lack history. A shallow clone (git clone --depth) stops at
// its boundary commits, whose parents it does not have; a single-branch
// clone (--single-branch, implied by --depth) has no default branch to
// compare with and none of the other branches or tags. A CI checkout is
// often both. A command that needs what is missing either fetches just
// that (Repo.Fetch set: one branch, a tag or commit into FETCH_HEAD, or
// history below the boundary, deepened step by step; never a local
// branch, the index or the work tree) or stops with a *HistoryError that
// names the cause and the git command that fixes it.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HistoryError says that this clone lacks history or files a command
// needs, why, and what fixes it.
type HistoryError struct {
	Msg string   // what is missing and why
	Fix []string // commands, each of which fixes it (a shell line)
	// Fetchable: with fetching allowed (Repo.Fetch), perfls fetches it.
	Fetchable bool
}

func (e *HistoryError) Error() string {
	var b strings.Builder
	b.WriteString(e.Msg)
	for i, f := range e.Fix {
		b.WriteString(map[bool]string{true: "\n  fix: ", false: "\n   or: "}[i == 0])
		b.WriteString(f)
	}
	return b.String()
}

// IsHistory reports a *HistoryError.
func IsHistory(err error) bool { var e *HistoryError; return errors.As(err, &e) }

// Shallow reports whether this is a shallow clone: history below its
// boundary commits is missing.
func (r *Repo) Shallow(ctx context.Context) bool {
	out, err := git(ctx, r.Top, "rev-parse", "--is-shallow-repository")
	return err == nil && out == "true"
}

// boundary is a shallow clone's boundary commits (here, their parents
// not): the lines of its shallow file; empty in a complete clone.
func (r *Repo) boundary(ctx context.Context) (map[string]bool, error) {
	p, err := git(ctx, r.Top, "rev-parse", "--git-path", "shallow")
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.Top, p)
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the shallow boundary: %w", err)
	}
	out := map[string]bool{}
	for _, h := range strings.Fields(string(b)) {
		out[h] = true
	}
	return out, nil
}

// remote is the remote this clone fetches from: HEAD's branch's, else
// origin, else the only one; "" when there is none.
func (r *Repo) remote(ctx context.Context) string {
	if b, err := git(ctx, r.Top, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		if rm, err := git(ctx, r.Top, "config", "--get", "branch."+b+".remote"); err == nil && rm != "" && rm != "." {
			return rm
		}
	}
	out, _ := git(ctx, r.Top, "remote")
	names := strings.Fields(out)
	switch {
	case slices.Contains(names, "origin"):
		return "origin"
	case len(names) == 1:
		return names[0]
	}
	return ""
}

// tracked is the branches remote's fetch refspecs bring; all when they
// take every branch (refs/heads/*). Fewer: a single-branch clone.
func (r *Repo) tracked(ctx context.Context, remote string) (branches []string, all bool) {
	out, _ := git(ctx, r.Top, "config", "--get-all", "remote."+remote+".fetch")
	for _, spec := range strings.Fields(out) {
		src, _, _ := strings.Cut(strings.TrimPrefix(spec, "+"), ":")
		if strings.Contains(src, "*") {
			return nil, true
		}
		if b, ok := strings.CutPrefix(src, "refs/heads/"); ok {
			branches = append(branches, b)
		}
	}
	return branches, false
}

// fetch runs `git fetch` from remote with opts and then refs (refspecs
// into remote-tracking refs, or names and hashes for FETCH_HEAD alone),
// after telling r.Fetch the command. Tags are not followed and
// submodules not fetched: only what is asked for comes.
func (r *Repo) fetch(ctx context.Context, opts []string, remote string, refs ...string) error {
	args := append(append([]string{"fetch", "--quiet", "--no-tags", "--no-recurse-submodules"}, opts...), remote)
	args = append(args, refs...)
	r.Fetch("git " + strings.Join(args, " "))
	if _, err := git(ctx, r.Top, args...); err != nil {
		return fmt.Errorf("fetch from %s: %w", remote, err)
	}
	return nil
}

// deepen fetches history below a shallow clone's boundary, asking for
// wants (commits here already, so that only older history comes), the
// depth doubled each time, until done reports true, the clone is complete
// or the remote has nothing more.
func (r *Repo) deepen(ctx context.Context, remote string, wants []string, done func() bool) error {
	for n := 16; !done(); n *= 2 {
		before, err := r.boundary(ctx)
		if err != nil || len(before) == 0 {
			return err
		}
		if err := r.fetch(ctx, []string{fmt.Sprintf("--deepen=%d", n)}, remote, wants...); err != nil {
			return err
		}
		after, err := r.boundary(ctx)
		if err != nil || maps.Equal(before, after) {
			return err
		}
	}
	return nil
}

// Base is the commit a change is compared with by default.
type Base struct {
	Commit string // the merge base, or HEAD (Ref "")
	// Ref is the default branch's ref Commit is the merge base with; ""
	// when the repository has neither a remote nor a default branch (a
	// local one), and Commit is HEAD.
	Ref string
}

// DefaultBase is the merge base of HEAD with the default branch: the
// remote's HEAD (origin/HEAD), else main, master, origin/main,
// origin/master. A repository with no remote and none of them has HEAD
// itself. A clone that has a remote but not its default branch (a
// single-branch clone), or whose shallow history stops before the merge
// base, fetches what is missing when r.Fetch is set (the remote's default
// branch alone, then history below the boundary), else is a
// *HistoryError.
func (r *Repo) DefaultBase(ctx context.Context) (Base, error) {
	head, err := r.Resolve(ctx, "HEAD")
	if err != nil {
		return Base{}, err
	}
	remote := r.remote(ctx)
	ref := r.defaultRef(ctx, remote)
	if ref == "" {
		if remote == "" {
			return Base{Commit: head}, nil
		}
		if ref, err = r.fetchDefault(ctx, remote); err != nil {
			return Base{}, err
		}
	}
	short := strings.TrimPrefix(strings.TrimPrefix(ref, "refs/remotes/"), "refs/heads/")
	mergeBase := func() string {
		mb, _ := git(ctx, r.Top, "merge-base", head, ref)
		return mb
	}
	mb := mergeBase()
	if mb == "" && r.Shallow(ctx) {
		if r.Fetch == nil || remote == "" {
			return Base{}, &HistoryError{
				Msg: fmt.Sprintf("this is a shallow clone (git clone --depth): the histories of HEAD and %s are cut before they meet, so their merge base (the default base) is not here", short),
				Fix: []string{"git fetch --unshallow", "git fetch --deepen=N   (N commits more: enough to reach the merge base)"}, Fetchable: remote != ""}
		}
		tip, err := r.Resolve(ctx, ref)
		if err != nil {
			return Base{}, err
		}
		if err := r.deepen(ctx, remote, []string{head, tip}, func() bool { mb = mergeBase(); return mb != "" }); err != nil {
			return Base{}, fmt.Errorf("find the merge base of HEAD and %s: %w", short, err)
		}
	}
	if mb == "" {
		if err := ctx.Err(); err != nil {
			return Base{}, err
		}
		return Base{}, &HistoryError{Msg: fmt.Sprintf("HEAD and %s have no commit in common (unrelated histories): there is no merge base to compare with", short)}
	}
	return Base{Commit: mb, Ref: ref}, nil
}

// defaultRef is the ref of the default branch this clone has (see
// DefaultBase), "" when it has none of them.
func (r *Repo) defaultRef(ctx context.Context, remote string) string {
	if remote == "" {
		remote = "origin"
	}
	candidates := []string{"refs/remotes/" + remote + "/HEAD", "refs/heads/main", "refs/heads/master", "refs/remotes/" + remote + "/main", "refs/remotes/" + remote + "/master"}
	out, _ := git(ctx, r.Top, append([]string{"for-each-ref", "--format=%(refname)"}, candidates...)...)
	have := strings.Fields(out)
	for _, c := range candidates {
		if !slices.Contains(have, c) {
			continue
		}
		// origin/HEAD names the branch: say origin/main.
		if target, err := git(ctx, r.Top, "symbolic-ref", "--quiet", c); err == nil && strings.HasPrefix(target, "refs/") {
			return target
		}
		return c
	}
	return ""
}

// fetchDefault fetches remote's default branch into its remote-tracking
// ref (only its tip in a shallow clone: DefaultBase deepens both sides
// until they meet) and returns that ref.
func (r *Repo) fetchDefault(ctx context.Context, remote string) (string, error) {
	if r.Fetch == nil {
		fix := fmt.Sprintf("git fetch %s main:refs/remotes/%s/main   (main: the branch to compare with)", remote, remote)
		if r.Shallow(ctx) {
			fix = "git fetch --unshallow && " + fix
		}
		branches, _ := r.tracked(ctx, remote)
		return "", &HistoryError{
			Msg: fmt.Sprintf("this clone has no default branch to compare with (no %s/HEAD, main or master; it fetches only %s from %s: cloned with --single-branch or --depth), so the merge base would be HEAD itself",
				remote, orNothing(branches), remote),
			Fix: []string{fix}, Fetchable: true}
	}
	r.Fetch("git ls-remote --symref " + remote + " HEAD")
	out, err := git(ctx, r.Top, "ls-remote", "--symref", remote, "HEAD")
	if err != nil {
		return "", fmt.Errorf("ask %s for its default branch: %w", remote, err)
	}
	branch := ""
	for line := range strings.Lines(out) {
		if target, ok := strings.CutPrefix(line, "ref: refs/heads/"); ok {
			branch, _, _ = strings.Cut(target, "\t")
		}
	}
	if err := checkBranch(ctx, r, branch); err != nil {
		return "", fmt.Errorf("%s names no default branch (its HEAD is %q): name the base commit", remote, branch)
	}
	ref := "refs/remotes/" + remote + "/" + branch
	if err := r.fetch(ctx, r.depthOne(ctx), remote, "+refs/heads/"+branch+":"+ref); err != nil {
		return "", err
	}
	return ref, nil
}

// depthOne is the fetch option that keeps a shallow clone shallow (only
// the tip of what is fetched; its history is deepened when needed), none
// in a complete clone.
func (r *Repo) depthOne(ctx context.Context) []string {
	if r.Shallow(ctx) {
		return []string{"--depth=1"}
	}
	return nil
}

// checkBranch tells whether name is a valid branch name.
func checkBranch(ctx context.Context, r *Repo, name string) error {
	if name == "" || strings.HasPrefix(name, "-") {
		return fmt.Errorf("%q is no branch name", name)
	}
	_, err := git(ctx, r.Top, "check-ref-format", "refs/heads/"+name)
	return err
}

func orNothing(branches []string) string {
	if len(branches) == 0 {
		return "no branch"
	}
	return strings.Join(branches, ", ")
}

// Need is Resolve for a commit a command needs (a base, bisect's GOOD and
// BAD). In a shallow or single-branch clone, a name it does not know may
// be beyond the boundary or on a branch or tag not fetched: with r.Fetch
// set it fetches it (a branch into its remote-tracking ref, a tag or a
// full hash into FETCH_HEAD, a relative name or short hash by deepening
// the history), else a *HistoryError names the commands that would.
func (r *Repo) Need(ctx context.Context, name string) (string, error) {
	h, err := r.Resolve(ctx, name)
	if err == nil || !IsUnknown(err) || name == "" || strings.HasPrefix(name, "-") {
		return h, err
	}
	remote := r.remote(ctx)
	shallow := r.Shallow(ctx)
	var branches []string
	all := true
	if remote != "" {
		branches, all = r.tracked(ctx, remote)
	}
	if !shallow && all {
		return "", err
	}
	kind := nameKind(name)
	if r.Fetch != nil && remote != "" {
		if h, err := r.fetchName(ctx, remote, name, kind, shallow); err != nil || h != "" {
			return h, err
		}
		return "", &UnknownError{Name: name, Msg: fmt.Sprintf("no such commit, tag or branch in %s, nor on %s", r.Top, remote)}
	}
	he := &HistoryError{Fetchable: remote != ""}
	var why []string
	if !all && kind == refName {
		// A name: most likely a branch or tag the clone did not fetch.
		b := strings.TrimPrefix(name, remote+"/")
		why = append(why, fmt.Sprintf("this clone fetches only %s from %s (--single-branch): other branches and tags are not here", orNothing(branches), remote))
		he.Fix = append(he.Fix, fmt.Sprintf("git fetch %s %s:refs/remotes/%s/%s   (a branch; then name it %s/%s)", remote, b, remote, b, remote, b),
			fmt.Sprintf("git fetch %s tag %s   (a tag)", remote, b))
	}
	if shallow {
		why = append(why, "this is a shallow clone (git clone --depth): the commit may lie below its boundary")
		he.Fix = append(he.Fix, "git fetch --unshallow", "git fetch --deepen=N   (N commits more)")
	}
	if len(why) == 0 {
		return "", err
	}
	he.Msg = fmt.Sprintf("%v; %s", err, strings.Join(why, "; "))
	return "", he
}

// Kinds of revision names, for what fetching one takes.
const (
	refName  = iota // a branch or tag name (maybe remote/branch)
	hashName        // hexadecimal: a commit hash, maybe abbreviated
	relName         // anything else: HEAD~2, v1^, main@{1}
)

func nameKind(name string) int {
	switch {
	case len(name) >= 4 && strings.Trim(name, "0123456789abcdef") == "":
		return hashName
	case strings.ContainsAny(name, "~^@:{}"):
		return relName
	}
	return refName
}

// fetchName fetches what name names from remote (Need) and resolves it;
// "" when the remote has nothing by that name.
func (r *Repo) fetchName(ctx context.Context, remote, name string, kind int, shallow bool) (string, error) {
	switch {
	case kind == refName:
		b := strings.TrimPrefix(name, remote+"/")
		if checkBranch(ctx, r, b) != nil {
			return "", nil
		}
		r.Fetch("git ls-remote " + remote + " refs/heads/" + b + " refs/tags/" + b)
		out, err := git(ctx, r.Top, "ls-remote", remote, "refs/heads/"+b, "refs/tags/"+b)
		if err != nil {
			return "", fmt.Errorf("ask %s for %s: %w", remote, b, err)
		}
		switch {
		case strings.Contains(out, "\trefs/heads/"+b):
			ref := "refs/remotes/" + remote + "/" + b
			if err := r.fetch(ctx, r.depthOne(ctx), remote, "+refs/heads/"+b+":"+ref); err != nil {
				return "", err
			}
			return r.Resolve(ctx, ref)
		case strings.Contains(out, "\trefs/tags/"+b):
			if err := r.fetch(ctx, r.depthOne(ctx), remote, "refs/tags/"+b); err != nil {
				return "", err
			}
			return r.Resolve(ctx, "FETCH_HEAD")
		}
		return "", nil
	case kind == hashName && IsFullHash(name):
		if err := r.fetch(ctx, r.depthOne(ctx), remote, name); err != nil {
			return "", err
		}
		return r.Resolve(ctx, name)
	case shallow:
		// HEAD~40, a short hash: below the boundary of HEAD's history, or
		// of the named commit's ("main~3").
		var want string
		var err error
		if i := strings.IndexAny(name, "~^@:"); i > 0 && kind == relName {
			want, err = r.Resolve(ctx, name[:i])
		}
		if want == "" || err != nil {
			if want, err = r.Resolve(ctx, "HEAD"); err != nil {
				return "", err
			}
		}
		var h string
		err = r.deepen(ctx, remote, []string{want}, func() bool { h, _ = r.Resolve(ctx, name); return h != "" })
		return h, err
	}
	return "", nil
}

// FirstParents lists the commits after good up to bad on bad's
// first-parent line, oldest first (bad last). good must be an ancestor of
// bad. In a shallow clone the line may be cut (a commit on it whose
// parents are missing, or good not reached): with r.Fetch set the history
// is deepened until it is whole, else that is a *HistoryError.
func (r *Repo) FirstParents(ctx context.Context, good, bad string) ([]string, error) {
	line, err := r.firstParents(ctx, good, bad)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	bound, berr := r.boundary(ctx)
	if berr != nil || len(bound) == 0 {
		return line, err
	}
	cut := func() string {
		for _, c := range line {
			if bound[c] {
				return c
			}
		}
		return ""
	}
	if err == nil && cut() == "" {
		return line, nil
	}
	remote := r.remote(ctx)
	if r.Fetch != nil && remote != "" {
		derr := r.deepen(ctx, remote, []string{bad, good}, func() bool {
			line, err = r.firstParents(ctx, good, bad)
			if b, e := r.boundary(ctx); e == nil {
				bound = b
			}
			return err == nil && cut() == ""
		})
		if derr != nil {
			return nil, derr
		}
		if err != nil || cut() == "" {
			return line, err
		}
	}
	msg := fmt.Sprintf("this is a shallow clone (git clone --depth): %.12s is not an ancestor of %.12s in the history it has, which may be cut between them", good, bad)
	if c := cut(); err == nil {
		msg = fmt.Sprintf("this is a shallow clone (git clone --depth): commit %.12s, on the line from %.12s down to %.12s, has its parents missing (the boundary of the clone's history)", c, bad, good)
	}
	return nil, &HistoryError{Msg: msg, Fix: []string{"git fetch --unshallow", "git fetch --deepen=N   (N commits more: enough to reach the older commit)"}, Fetchable: remote != ""}
}

func (r *Repo) firstParents(ctx context.Context, good, bad string) ([]string, error) {
	if _, err := git(ctx, r.Top, "merge-base", "--is-ancestor", good, bad); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%.12s is not an ancestor of %.12s", good, bad)
	}
	out, err := git(ctx, r.Top, "rev-list", "--first-parent", "--reverse", good+".."+bad)
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}
