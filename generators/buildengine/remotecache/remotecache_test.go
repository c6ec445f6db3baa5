package remotecache

import "testing"

func TestParseStats(t *testing.T) {
	s := ParseStats("stats_updated_timestamp\t1795489185\ndirect_cache_hit\t3\ncache_miss\t2\nremote_storage_hit\t3\nnot a counter\nodd\tx\n")
	if s.Compiled() != 2 || s.RemoteHits() != 3 || s["direct_cache_hit"] != 3 || len(s) != 4 {
		t.Errorf("parsed %v", s)
	}
	if got := s.String(); got != "direct_cache_hit=3 cache_miss=2 remote_storage_hit=3" {
		t.Errorf("String() = %q", got)
	}
}

func TestEnvironReplacesAndUnsets(t *testing.T) {
	c := &Ccache{Env: map[string]string{"CCACHE_DIR": "/c", "CCACHE_DISABLE": ""}}
	got := c.Environ([]string{"PATH=/bin", "CCACHE_DIR=/home/x", "CCACHE_DISABLE=1"})
	want := map[string]bool{"PATH=/bin": true, "CCACHE_DIR=/c": true}
	if len(got) != len(want) {
		t.Fatalf("Environ = %v", got)
	}
	for _, kv := range got {
		if !want[kv] {
			t.Errorf("unexpected %s in %v", kv, got)
		}
	}
}
