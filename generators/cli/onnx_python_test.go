package cli

// End to end with the onnx Python package: models built by onnx.helper
// (one with external data), imported, validated, rewritten, and checked by
// onnx.checker (full_check) and by comparing every proto that should not
// change. The interpreter comes from OPFORGE_PYTHON (`go tool mage test`
// sets it to a virtualenv with testdata/requirements.txt); without it, or
// without onnx, the test skips.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/opforge/opforge/generators/diag"
	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/load"
	"github.com/opforge/opforge/generators/onnx"
	"github.com/opforge/opforge/generators/onnximport"
	"github.com/opforge/opforge/generators/registry"
	"github.com/opforge/opforge/generators/targets/trt"
)

const onnxScript = "../../testdata/python/onnx_models.py"

func onnxPython(t *testing.T) string {
	t.Helper()
	python := os.Getenv("OPFORGE_PYTHON")
	if python == "" {
		t.Skip("OPFORGE_PYTHON is not set: ONNX checks need a Python with onnx (`go tool mage test` sets it up)")
	}
	if out, err := exec.Command(python, "-c", "import onnx").CombinedOutput(); err != nil {
		t.Skipf("OPFORGE_PYTHON=%s cannot import onnx, skipping ONNX checks: %v\n%s", python, err, out)
	}
	return python
}

func TestRewrittenModelsPassOnnxChecker(t *testing.T) {
	python := onnxPython(t)
	dir := t.TempDir()
	if out, err := exec.Command(python, onnxScript, "build", dir).CombinedOutput(); err != nil {
		t.Fatalf("building models: %v\n%s", err, out)
	}
	// A field onnx.proto does not define travels through import and rewrite.
	symbolic := filepath.Join(dir, "symbolic.onnx")
	data, _ := os.ReadFile(symbolic)
	if err := os.WriteFile(symbolic, append(data, unknownField...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, model string
		out         string // relative to dir
		args        []string
		nodes       map[string]node
	}{
		{"symbolic dims, subgraph, standard op renamed", "symbolic.onnx", "symbolic.plugins.onnx",
			[]string{"--unsupported-for", "trt", "--rename", "Unique=UniquePlugin,Bernoulli=BernoulliPlugin"},
			map[string]node{"roi": {"RoiAlignLite", "custom"}, "unique": {"UniquePlugin", "symbolic"}, "swish_then": {"Swish3", "custom"}, "swish_top": {"Swish3", "custom"}, "bernoulli_else": {"BernoulliPlugin", "symbolic"}}},
		{"external data, same directory", "external/model.onnx", "external/model.plugins.onnx",
			[]string{"--unsupported-for", "trt"},
			map[string]node{"bias_gelu": {"BiasGelu", "custom"}}},
		{"external data, copied", "external/model.onnx", "elsewhere/model.plugins.onnx",
			[]string{"--unsupported-for", "trt", "--copy-external-data"},
			map[string]node{"bias_gelu": {"BiasGelu", "custom"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := filepath.Join(dir, c.model)
			_, pkgDir := onnximport.DefaultPackage(model)
			opdef := filepath.Join(dir, "opdefs", pkgDir, pkgDir+".yaml")
			importArgs := []string{"import", "onnx", model, "-o", opdef, "--force"}
			for i := 0; i < len(c.args); i++ {
				if c.args[i] != "--copy-external-data" {
					importArgs = append(importArgs, c.args[i])
				}
			}
			if code, out, errs := run(importArgs...); code != 0 {
				t.Fatalf("import: exit %d\n%s%s", code, out, errs)
			}
			var l diag.List
			pkg := load.File(opdef, &l)
			registry.Check(&l, pkg)
			if pkg == nil || l.HasErrors() {
				t.Fatalf("imported opdef does not validate: %v", l.Sorted())
			}
			out := filepath.Join(dir, c.out)
			if code, stdout, errs := run(append([]string{"rewrite", "onnx", model, "--opdef", opdef, "-o", out}, c.args...)...); code != 0 {
				t.Fatalf("rewrite: exit %d\n%s%s", code, stdout, errs)
			}
			expect := map[string]map[string]string{}
			for name, n := range c.nodes {
				op := pkg.Ops[0]
				for _, o := range pkg.Ops {
					if o.Name == n.op {
						op = o
					}
				}
				id := trt.PluginID(pkg, op)
				expect[name] = map[string]string{"op_type": n.op, "domain": n.domain, "plugin_namespace": id.Namespace, "plugin_version": id.Version}
			}
			ej, _ := json.Marshal(expect)
			expectFile := filepath.Join(t.TempDir(), "expect.json")
			_ = os.WriteFile(expectFile, ej, 0o644)
			if msg, err := exec.Command(python, onnxScript, "check", model, out, expectFile).CombinedOutput(); err != nil {
				t.Errorf("rewritten model fails the checks: %v\n%s", err, msg)
			}
			checkCreatorFields(t, out, pkg, c.nodes)
		})
	}
}

// node is what a rewritten node must call.
type node struct{ op, domain string }

// checkCreatorFields: on every rewritten node, the attributes TensorRT's
// parser forwards are exactly the params of its op in the opdef, and each
// arrives as the PluginFieldType the creator declares for that param (the
// PluginFieldType of the param's dtype).
func checkCreatorFields(t *testing.T, path string, pkg *ir.Package, nodes map[string]node) {
	t.Helper()
	m, err := onnx.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range m.Nodes() {
		want, ok := nodes[n.Name]
		if !ok {
			continue
		}
		var op *ir.Op
		for _, o := range pkg.Ops {
			if o.Name == n.OpType {
				op = o
			}
		}
		if op == nil || n.OpType != want.op {
			t.Errorf("%s calls %s, which the opdef does not define", n, n.OpType)
			continue
		}
		var attrs, params []string
		for _, a := range n.Attributes {
			if a.Name == "plugin_namespace" || a.Name == "plugin_version" {
				continue
			}
			attrs = append(attrs, a.Name)
			p := op.Param(a.Name)
			if p == nil {
				t.Errorf("%s: attribute %q is no field of the %s creator", n, a.Name, op.Name)
				continue
			}
			if sent, declared := trt.ParserFieldType(a), trt.FieldType(p.DTypes[0]); sent != declared {
				t.Errorf("%s: attribute %q arrives as %s, the creator declares %s", n, a.Name, sent, declared)
			}
		}
		for _, p := range op.Params {
			params = append(params, p.Name)
		}
		sort.Strings(attrs)
		sort.Strings(params)
		if strings.Join(attrs, ",") != strings.Join(params, ",") {
			t.Errorf("%s: attributes %v, creator fields %v", n, attrs, params)
		}
	}
}

// TestImportedOpsReferenceRunsTheModelsOps: ops imported from ONNX (two
// standard ops, one a function of the model defines) get a reference that
// runs the model's op with onnx.reference.ReferenceEvaluator, with the
// params as attributes; the generated module finds the model from another
// working directory and matches torch.
func TestImportedOpsReferenceRunsTheModelsOps(t *testing.T) {
	python := onnxPython(t)
	if out, err := exec.Command(python, "-c", "import torch, onnx.reference").CombinedOutput(); err != nil {
		t.Skipf("OPFORGE_PYTHON=%s cannot import torch and onnx.reference: %v\n%s", python, err, out)
	}
	script, err := filepath.Abs("../../testdata/python/onnx_reference.py")
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if out, err := exec.Command(python, script, "build", ws).CombinedOutput(); err != nil {
		t.Fatalf("building the model: %v\n%s", err, out)
	}
	t.Chdir(ws)
	if code, out, errs := run("import", "onnx", "model.onnx", "--op-types", "Det,LeakyRelu,Swish", "--rename", "Det=DetPlugin,LeakyRelu=LeakyReluPlugin,Swish=SwishPlugin"); code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errs)
	}
	opdef, _ := os.ReadFile(filepath.Join("opdefs", "model", "model.yaml"))
	for _, want := range []string{"onnx: {model: ../../model.onnx, op_type: Det}", "onnx: {model: ../../model.onnx, op_type: Swish, domain: custom}"} {
		if !strings.Contains(string(opdef), want) {
			t.Errorf("the opdef lacks %q:\n%s", want, opdef)
		}
	}
	if code, out, errs := run("gen"); code != 0 {
		t.Fatalf("gen: exit %d\n%s%s", code, out, errs)
	}
	module, _ := filepath.Abs(filepath.Join("out", "reference", "Model", "model_reference.py"))
	check := exec.Command(python, script, "check", module)
	check.Dir = filepath.Join("out", "reference")
	out, err := check.CombinedOutput()
	if err != nil {
		t.Fatalf("the reference module does not match torch: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
