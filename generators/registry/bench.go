package registry

import (
	"github.com/opforge/opforge/generators/targets/htp"
	"github.com/opforge/opforge/generators/targets/trt"
)

// The builds the bench (generators/bench) measures, each a target's with
// what its build needs there, so the bench names no target itself.
var (
	// NoopBench: the HTP x86 variant, whose compiler the descriptor takes
	// from X86_CXX, so a stand-in compiler can take its place, against a
	// stand-in SDK.
	NoopBench = BenchBuild{Target: "htp", Variant: "x86", StandIn: htp.StandInSDK}
	// TeamBench: TensorRT, whose CUDA compiles are the slowest a team
	// repeats, through a shared compiler cache.
	TeamBench = BenchBuild{Target: "trt", Title: "TensorRT", CompilerEnv: trt.BenchCompilerEnv, Yardstick: trt.BenchYardstick}
	// PeerBench: tensorrt_plugin_generator, the generator of TensorRT
	// plugins issue 30 holds cold generation against.
	PeerBench = BenchPeer{Target: "trt", Name: "tensorrt_plugin_generator", Command: trt.BenchPeer}
)

// BenchBuild is a build the bench measures.
type BenchBuild struct {
	Target string
	// Title names the target in the bench's tables.
	Title string
	// Variant is the build variant built (--arch), "" for all.
	Variant string
	// StandIn, when set, lays out under dir the stand-in SDK the build's
	// preflight accepts, with cxx as its compiler, and returns the
	// environment pointing the build at them.
	StandIn func(dir, cxx string) ([]string, error)
	// CompilerEnv, when set, adds to env what the compilers need.
	CompilerEnv func(env []string) []string
	// Yardstick, when set, is the cold build of a generated package in
	// pkgDir without opforge (its own build files) into buildDir: the
	// commands, run in order, and what their environment needs besides
	// env; or why this machine cannot run them.
	Yardstick func(pkgDir, buildDir string, env []string) (cmds [][]string, extraEnv []string, err error)
}

// BenchPeer is another generator of a target's code that the bench times
// beside opforge's cold generation of the same ops.
type BenchPeer struct {
	Target, Name string
	// Command writes under dir the peer's spec of n synthetic ops and
	// returns the command (run in cwd) that generates them into out, or
	// why the peer cannot run here.
	Command func(n int, dir, out string) (cmd []string, cwd string, err error)
}
