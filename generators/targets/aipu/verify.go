package aipu

import (
	_ "embed"
	"os"
	"path/filepath"

	"github.com/opforge/opforge/generators/ir"
	"github.com/opforge/opforge/generators/verifier"
)

// verifyModule holds the runner script's classes of the aipu runners.
//
//go:embed runners/aipu_verify.py
var verifyModule []byte

// Verifiers are the aipu target's verify runners: the OPT plugin's float
// forward in the Compass Optimizer (aipu) and its quantized forward
// (aipu-quant).
func (Target) Verifiers() []verifier.Runner {
	return []verifier.Runner{optRunner{name: "aipu", class: "AIPU"}, optRunner{name: "aipu-quant", class: "AIPUQuantized"}}
}

// optRunner runs the package's OPT plugins in a Compass_Optimizer
// checkout, with class (of runners/aipu_verify.py): AIPU (the float
// forward) or AIPUQuantized.
type optRunner struct{ name, class string }

func (r optRunner) Name() string { return r.name }

func (r optRunner) Implementation() verifier.Implementation {
	return verifier.Implementation{File: "aipu_verify.py", Source: verifyModule, Class: r.class}
}

func (optRunner) Runnable(o verifier.Options, _ *ir.Package, op *ir.Op) (string, bool) {
	if OpOptions(op) == nil {
		return "", false
	}
	if compassDir() == "" {
		return "COMPASS_OPTIMIZER_DIR is not set (a checkout of github.com/Arm-China/Compass_Optimizer): the OPT plugin is not run", true
	}
	for _, in := range op.Inputs {
		if in.Static || in.Optional || in.Variadic {
			return "verify does not run AIPU ops with static, optional or variadic inputs yet", true
		}
	}
	for _, p := range op.Params {
		if p.Kind == ir.ParamTensor {
			return "verify does not run AIPU ops with tensor params yet", true
		}
	}
	return "", true
}

// OpFields give the op's Compass IR layer_type.
func (optRunner) OpFields(_ *ir.Package, op *ir.Op) map[string]any {
	lt := op.Name
	if a := OpOptions(op); a != nil && a.LayerType != "" {
		lt = a.LayerType
	}
	return map[string]any{"layer_type": lt}
}

// DTypeName spells case dtypes as the Compass IR does.
func (optRunner) DTypeName(d ir.DType) string { return CompassDType(d) }

func (optRunner) Prepare(o verifier.Options, pkg *ir.Package, _ string) verifier.Prepared {
	return verifier.Prepared{Env: []string{"AIPUPLUGIN_PATH=" + filepath.Join(o.Out, "aipu", pkg.Name, "opt"), "COMPASS_OPTIMIZER_DIR=" + compassDir()}}
}

// compassDir is the Compass_Optimizer checkout the OPT runner imports.
func compassDir() string { return os.Getenv("COMPASS_OPTIMIZER_DIR") }
