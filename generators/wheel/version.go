package wheel

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// firstVersion is the version the development line before any release
// tag counts toward.
const firstVersion = "0.1.0"

var releaseTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v?([0-9]+(?:\.[0-9]+)*)$`) })

// Describe is where the checkout stands against its newest release tag.
type Describe struct {
	// Tag is the newest release tag (vX.Y.Z), "" when there is none.
	Tag string
	// Commits counts commits since Tag (since the root without one).
	Commits int
	// Revision is the commit's short hash.
	Revision string
	// Dirty: the work tree has uncommitted changes.
	Dirty bool
}

// Version is the PEP 440 version of a build at d, as setuptools-scm's
// guess-next-dev scheme spells it: the tag itself on a clean tagged
// commit, otherwise the next patch release's .devN with the revision as
// the local label, so every development build sorts after the release it
// follows and before the next one.
func Version(d Describe) (string, error) {
	base := firstVersion
	if d.Tag != "" {
		m := releaseTag().FindStringSubmatch(d.Tag)
		if m == nil {
			return "", fmt.Errorf("wheel: tag %q is not a release tag (vX.Y.Z)", d.Tag)
		}
		if d.Commits == 0 && !d.Dirty {
			return m[1], nil
		}
		base = nextPatch(m[1])
	}
	local := "g" + strings.ToLower(d.Revision)
	if d.Dirty {
		local += ".dirty"
	}
	v := fmt.Sprintf("%s.dev%d+%s", base, d.Commits, local)
	if !pep440.MatchString(v) {
		return "", fmt.Errorf("wheel: %q is not a PEP 440 version (revision %q)", v, d.Revision)
	}
	return v, nil
}

// nextPatch bumps the last component: 1.2.3 → 1.2.4.
func nextPatch(v string) string {
	parts := strings.Split(v, ".")
	n, _ := strconv.Atoi(parts[len(parts)-1])
	parts[len(parts)-1] = strconv.Itoa(n + 1)
	return strings.Join(parts, ".")
}
