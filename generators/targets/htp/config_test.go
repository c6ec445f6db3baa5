package htp_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/ir/irtest"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/sharedfixtures"
	"github.com/opforge/opforge/generators/targets/htp"
	"github.com/opforge/opforge/generators/targets/htp/qnnxml"
)

// TestConfigXMLInParts: the config made of per-op parts, fresh and then
// from the store, is byte for byte the config written whole, for every
// package of the golden cases and the real QNN configs (where present).
func TestConfigXMLInParts(t *testing.T) {
	packages, served, totalOps := 0, 0, 0
	dirs, _ := filepath.Glob("../../../testdata/gen/*/opdefs")
	dirs = append(dirs, "../../../../shared/fixtures/qnn", "../../../../shared/fixtures/qnn-more")
	for _, dir := range dirs {
		if !sharedfixtures.Present(dir) {
			t.Logf("%s is absent (shared/fixtures: CI and developers only): its packages are not checked", dir)
			continue
		}
		var l diag.List
		pkgs := load.Tree(dir, &l)
		registry.Check(&l, pkgs...)
		if l.HasErrors() {
			continue // a case of refused opdefs: nothing is generated
		}
		for _, pkg := range pkgs {
			pkg = pkg.For("htp")
			ops := htp.Ops(pkg)
			if len(ops) == 0 {
				continue
			}
			packages++
			totalOps += len(ops)
			sub := *pkg
			sub.Ops = ops
			var wl diag.List
			whole, err := qnnxml.Write(&sub, &wl)
			if err != nil || wl.HasErrors() {
				t.Fatalf("%s: %v %v", pkg.Name, err, wl.Sorted())
			}
			// Keys as gen gives them: one per op (XML opdefs have no
			// digest, which the test keys all the same).
			store := irtest.NewSections()
			keyed := *pkg
			keyed.Reuse = &ir.Reuse{Keys: map[*ir.Op]string{}, Sections: store}
			for i, op := range ops {
				keyed.Reuse.Keys[op] = fmt.Sprintf("%s-%d-%s", pkg.Name, i, op.Digest)
			}
			for _, pass := range []string{"fresh", "from the store"} {
				var pl diag.List
				got, err := htp.ConfigXML(&keyed, ops, &pl)
				if err != nil || pl.HasErrors() {
					t.Fatalf("%s, %s: %v %v", pkg.Name, pass, err, pl.Sorted())
				}
				if !bytes.Equal(got, whole) {
					t.Errorf("%s, %s: the config in parts differs from the whole one:\n%s", pkg.Name, pass, firstDifference(got, whole))
				}
			}
			served += store.Served()
		}
	}
	t.Logf("%d packages, %d ops, %d parts served from the store", packages, totalOps, served)
	if packages == 0 || served == 0 {
		t.Fatalf("%d packages checked, %d parts served from the store: the test checked nothing", packages, served)
	}
}

func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("at byte %d:\n%q\nagainst\n%q", i, a[from:min(len(a), i+80)], b[from:min(len(b), i+80)])
}
