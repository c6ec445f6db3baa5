package verify

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is part K of N of a run (N == 0: the whole run): the op × target
// × case list, numbered in the order an unsharded run takes it, is dealt
// round-robin, so N machines (a CI matrix) each run one part and the
// merged results are the whole run's.
type Shard struct{ K, N int }

// ParseShard reads "K/N" (1 <= K <= N).
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("want K/N (e.g. 2/4), got %q", s)
	}
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("want K/N with 1 <= K <= N, got %q", s)
	}
	return Shard{K: ki, N: ni}, nil
}

// Owns reports whether the shard runs item number i.
func (s Shard) Owns(i int) bool { return s.N == 0 || i%s.N == s.K-1 }

func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}
