package trt

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/toolchain"
)

// BuildPlan is how the trt target builds (target.Builder).
func (Target) BuildPlan(o buildplan.Options) (*buildplan.Plan, error) { return BuildPlan(o) }

// BuildPlan plans, per package under out/trt: one nvcc unit per kernel (.cu) for
// the configured GPU architectures, one C++ unit per plugin source against
// the TensorRT headers, and the link of lib<Package>.so with the package's
// version script (only getCreators, getPluginCreators and setLoggerFinder
// are exported) and the static CUDA runtime.
func BuildPlan(o buildplan.Options) (*buildplan.Plan, error) {
	d, err := LoadToolchain(o.Toolchains)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(o.Build, "trt")
	p := &buildplan.Plan{Target: "trt", StateFile: filepath.Join(root, ".opforge-build.json"), CompDB: filepath.Join(root, "compile_commands.json")}
	o.Env = buildplan.WithVersionCache(o, p)
	cuda := o.Env.ResolveSDK(*d.SDK("cuda"))
	trt := o.Env.ResolveSDK(*d.SDK("tensorrt"))
	nvcc := o.Env.ResolveToolOf(d.Descriptor, "nvcc")
	cxx := o.Env.ResolveToolOf(d.Descriptor, "cxx")
	for _, f := range []toolchain.Found{cuda, trt, nvcc, cxx} {
		p.Require(f)
	}
	if len(p.Missing) > 0 {
		return p, nil
	}
	cudaLib := ""
	for _, dir := range []string{"lib64", "lib", "targets/x86_64-linux/lib"} {
		if _, err := o.Env.Stat(filepath.Join(cuda.Path, dir, "libcudart_static.a")); err == nil {
			cudaLib = filepath.Join(cuda.Path, dir)
			break
		}
	}
	if cudaLib == "" {
		p.Missing = append(p.Missing, toolchain.Found{Name: "libcudart_static.a", Kind: "file",
			Problem: fmt.Sprintf("not found in %s/lib64 or lib: the CUDA runtime library is needed to link; set CUDA_HOME to a full toolkit", cuda.Path)})
		return p, nil
	}
	nvccLauncher := p.Launcher(o.Env.LauncherFor(d.Descriptor, "nvcc"))
	cxxLauncher := p.Launcher(o.Env.LauncherFor(d.Descriptor, "cxx"))
	archs := d.TRT.CUDAArchs
	if env := o.Env.Getenv("CUDA_ARCHS"); env != "" { // e.g. CUDA_ARCHS=90 for one GPU
		archs = strings.Split(env, ",")
	}
	var gencode []string
	for _, a := range archs {
		gencode = append(gencode, fmt.Sprintf("-gencode=arch=compute_%s,code=sm_%s", a, a))
	}
	pkgs, err := o.PackageDirs("trt", "src")
	if err != nil {
		return nil, err
	}
	for _, src := range pkgs {
		pkgDir := filepath.Dir(src)
		pkg := filepath.Base(pkgDir)
		outDir := filepath.Join(root, pkg)
		var objs, ids []string
		add := func(id, tool, launcher string, args []string, source, obj string) {
			p.Units = append(p.Units, &buildengine.Unit{ID: id, Tool: tool, Launcher: launcher, Args: args, Inputs: []string{source}, Output: obj, Source: source})
			objs = append(objs, obj)
			ids = append(ids, id)
		}
		cubins := tritonUnits(p, o, pkgDir, outDir, archs)
		cus := o.Env.Glob(filepath.Join(src, "ops", "*.cu"))
		for _, cu := range cus {
			obj := filepath.Join(outDir, strings.TrimSuffix(filepath.Base(cu), ".cu")+".cu.o")
			args := append(append([]string{}, d.TRT.Flags.NVCC...), gencode...)
			op := strings.TrimSuffix(filepath.Base(cu), "Kernel.cu")
			if cubins[op] != "" {
				// <Op>Triton.h, the op's Triton kernel in cubin, lies in the build directory.
				args = append(args, "-I", outDir)
			}
			args = append(args, "-MMD", "-MF", buildengine.DepArg, "-c", cu, "-o", buildengine.OutArg)
			add(fmt.Sprintf("trt/%s/%s.o", pkg, filepath.Base(cu)), nvcc.Path, nvccLauncher, args, cu, obj)
			if id := cubins[op]; id != "" {
				u := p.Units[len(p.Units)-1]
				u.After = append(u.After, id)
			}
		}
		cpps := o.Env.Glob(filepath.Join(src, "*.cpp"))
		more := o.Env.Glob(filepath.Join(src, "ops", "*.cpp"))
		for _, cpp := range append(cpps, more...) {
			obj := filepath.Join(outDir, strings.TrimSuffix(filepath.Base(cpp), ".cpp")+".o")
			args := append([]string{}, d.TRT.Flags.CXX...)
			args = append(args, "-isystem", trt.Path, "-isystem", filepath.Join(cuda.Path, "include"),
				"-MMD", "-MF", buildengine.DepArg, "-c", cpp, "-o", buildengine.OutArg)
			add(fmt.Sprintf("trt/%s/%s", pkg, strings.TrimSuffix(filepath.Base(cpp), ".cpp")+".o"), cxx.Path, cxxLauncher, args, cpp, obj)
		}
		script := filepath.Join(pkgDir, pkg+".map")
		args := append([]string{}, d.TRT.Flags.Link...)
		args = append(append(args, "-o", buildengine.OutArg), objs...)
		args = append(args, "-Wl,--version-script="+script, "-L"+cudaLib, "-l:libcudart_static.a", "-ldl", "-lpthread", "-lrt")
		p.Units = append(p.Units, &buildengine.Unit{ID: fmt.Sprintf("trt/%s/lib%s.so", pkg, pkg), Tool: cxx.Path, Args: args,
			Inputs: append(append([]string{}, objs...), script), Output: filepath.Join(outDir, "lib"+pkg+".so"), After: ids})
	}
	return p, nil
}

// pythonTool is the Python that compiles imported Triton kernels: it
// needs Triton (whose ptxas compiles), not a GPU.
var pythonTool = toolchain.Tool{Name: "python", Description: "Python with Triton, which compiles imported Triton kernels to cubin",
	Env: "OPFORGE_PYTHON", Names: []string{"python3"}, Search: []string{".venv/bin/python3"}}

// tritonUnits plans, for each op of the package in pkgDir whose C++
// plugin launches its imported Triton kernel (src/ops/<Op>Triton.py), the
// unit that compiles the kernel into <Op>Triton.h in outDir for archs;
// it returns the units' IDs by op, which the ops' nvcc units wait for.
// The unit's inputs are the script and the Python plugin, whose
// triton:<Op> region holds the kernel.
func tritonUnits(p *buildplan.Plan, o buildplan.Options, pkgDir, outDir string, archs []string) map[string]string {
	scripts := o.Env.Glob(filepath.Join(pkgDir, "src", "ops", "*Triton.py"))
	if len(scripts) == 0 {
		return nil
	}
	python := o.Env.ResolveTool(pythonTool)
	p.Require(python)
	plugins := o.Env.Glob(filepath.Join(pkgDir, "python", "*_qdp.py"))
	ids := map[string]string{}
	pkg := filepath.Base(pkgDir)
	for _, script := range scripts {
		header, _ := isTritonScript(filepath.Base(script))
		op := strings.TrimSuffix(header, "Triton.h")
		id := fmt.Sprintf("trt/%s/%s", pkg, header)
		p.Units = append(p.Units, &buildengine.Unit{ID: id, Tool: python.Path,
			Args:   []string{script, "--archs", strings.Join(archs, ","), "-o", buildengine.OutArg},
			Inputs: append([]string{script}, plugins...), Output: filepath.Join(outDir, header), Format: buildengine.FormatNonEmpty})
		ids[op] = id
	}
	return ids
}
