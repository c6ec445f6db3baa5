package htp

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opforge/opforge/generators/buildengine"
	"github.com/opforge/opforge/generators/buildplan"
	"github.com/opforge/opforge/generators/toolchain"
)

// htpVariant is one build flavour of an HTP op package.
type htpVariant struct {
	name string // x86, aarch64, v68 ...
	dir  string // build/<...>/<dir>: the Makefile's output directory names
	cxx  string
	// launcher runs in front of the variant's compiles ("" for none).
	launcher string
	flags    []string
	ldArgs   []string
}

// BuildPlan is how the htp target builds (target.Builder).
func (Target) BuildPlan(o buildplan.Options) (*buildplan.Plan, error) { return BuildPlan(o) }

// HTPVariants lists the variant names in build order.
func HTPVariants(d *Descriptor) []string {
	out := []string{"x86", "aarch64"}
	for _, a := range d.HTP.Archs {
		out = append(out, a.Arch)
	}
	return out
}

// BuildPlan plans the builds of every package under out/htp for the
// requested variants (o.Variants; nil: all). Missing SDK pieces are returned in the plan's
// Missing list and no units are planned for the variants they block.
func BuildPlan(o buildplan.Options) (*buildplan.Plan, error) {
	variants := o.Variants
	d, err := LoadToolchain(o.Toolchains)
	if err != nil {
		return nil, err
	}
	p := &buildplan.Plan{Target: "htp", StateFile: filepath.Join(o.Build, "htp", ".opforge-build.json"), CompDB: filepath.Join(o.Build, "htp", "compile_commands.json")}
	o.Env = buildplan.WithVersionCache(o, p)
	all := HTPVariants(d)
	if variants == nil {
		variants = all
	}
	for _, v := range variants {
		if !slices.Contains(all, v) {
			return nil, fmt.Errorf("unknown HTP variant %q; known: %s", v, strings.Join(all, ", "))
		}
	}
	qnn := o.Env.ResolveSDK(*d.SDK("qnn"))
	p.Require(qnn)
	hexagon := o.Env.ResolveSDK(*d.SDK("hexagon"))
	var vs []htpVariant
	for _, name := range variants {
		if v, ok := htpVariantFor(o.Env, d, name, qnn, hexagon, p); ok {
			// The x86 build's compiler is the host_cxx tool (which may name
			// a launcher of its own); the NDK and Hexagon compilers come
			// from SDKs and take the target's.
			tool := ""
			if name == "x86" {
				tool = "host_cxx"
			}
			v.launcher = p.Launcher(o.Env.LauncherFor(d.Descriptor, tool))
			vs = append(vs, v)
		}
	}
	if !qnn.OK() || len(p.Missing) > 0 {
		return p, nil
	}
	inc := filepath.Join(qnn.Path, d.HTP.QNNInclude)
	pkgs, err := o.PackageDirs("htp", "src")
	if err != nil {
		return nil, err
	}
	for _, srcDir := range pkgs {
		pkgDir := filepath.Dir(srcDir)
		pkg := filepath.Base(pkgDir)
		sources := o.Env.Glob(filepath.Join(srcDir, "*.cpp"))
		ops := o.Env.Glob(filepath.Join(srcDir, "ops", "*.cpp"))
		sources = append(sources, ops...)
		for _, v := range vs {
			outDir := filepath.Join(o.Build, "htp", pkg, v.dir)
			var objs, ids []string
			// The variant's assembly, as the vendor's Makefile builds it.
			asm := o.Env.Glob(filepath.Join(srcDir, "ops", v.asmDir(), "*.S"))
			for _, src := range append(slices.Clone(sources), asm...) {
				rel, _ := filepath.Rel(srcDir, src)
				obj := filepath.Join(outDir, strings.TrimSuffix(strings.TrimSuffix(rel, ".cpp"), ".S")+".o")
				args := append([]string{}, d.HTP.Flags.Common...)
				args = append(args, "-I"+inc, "-I"+filepath.Join(inc, "HTP", "core"),
					`-DQNN_API=__attribute__((visibility("default")))`,
					`-D__QAIC_HEADER_EXPORT=__attribute__((visibility("default")))`,
					"-DTHIS_PKG_NAME="+pkg)
				args = append(args, v.flags...)
				args = append(args, "-MMD", "-MF", buildengine.DepArg, "-c", src, "-o", buildengine.OutArg)
				id := fmt.Sprintf("htp/%s/%s/%s", pkg, v.name, filepath.ToSlash(strings.TrimSuffix(strings.TrimSuffix(rel, ".cpp"), ".S")+".o"))
				p.Units = append(p.Units, &buildengine.Unit{ID: id, Tool: v.cxx, Launcher: v.launcher, Args: args, Inputs: []string{src}, Output: obj, Source: src})
				objs = append(objs, obj)
				ids = append(ids, id)
			}
			lib := filepath.Join(outDir, "libQnn"+pkg+".so")
			args := append(append([]string{}, v.flagsForLink(d)...), "-o", buildengine.OutArg)
			args = append(append(args, objs...), v.ldArgs...)
			p.Units = append(p.Units, &buildengine.Unit{ID: fmt.Sprintf("htp/%s/%s/libQnn%s.so", pkg, v.name, pkg), Tool: v.cxx, Args: args, Inputs: objs, Output: lib, After: ids})
		}
	}
	return p, nil
}

// asmDir is the directory under src/ops/ holding the variant's assembly
// sources: x86_asm, android_asm, v<NN>_asm.
func (v htpVariant) asmDir() string {
	switch v.name {
	case "x86":
		return "x86_asm"
	case "aarch64":
		return "android_asm"
	}
	return v.name + "_asm"
}

func (v htpVariant) flagsForLink(d *Descriptor) []string {
	if strings.HasPrefix(v.name, "v") {
		return append(append([]string{}, d.HTP.Flags.Link...), "-m"+v.name)
	}
	return d.HTP.Flags.Link
}

// htpVariantFor resolves the compiler and flags of one variant, recording
// what is missing.
func htpVariantFor(env toolchain.Env, d *Descriptor, name string, qnn, hexagon toolchain.Found, p *buildplan.Plan) (htpVariant, bool) {
	base := ""
	if hexagon.OK() {
		base = filepath.Dir(filepath.Clean(hexagon.Path))
	}
	switch name {
	case "x86":
		cxx := env.ResolveToolOf(d.Descriptor, "host_cxx")
		p.Require(cxx)
		root, tools := pinDirs(env, base, hexagon.Path, "X86", d.HTP.X86)
		native := filepath.Join(root, "tools", "HEXAGON_Tools", tools, "Tools", "libnative")
		ok := requirePath(p, "x86 HTP simulator library (libnative)", native, hexagon,
			"HEXAGON_SDK_ROOT (or HEXAGON_SDK_ROOT_X86 and HEXAGON_TOOLS_VERSION_X86)", d.HTP.X86.SDK+" with Hexagon tools "+d.HTP.X86.Tools)
		if !cxx.OK() || !ok {
			return htpVariant{}, false
		}
		flags := append(append([]string{}, d.HTP.Flags.X86...), "-I"+filepath.Join(native, "include"))
		return htpVariant{name: name, dir: "x86_64-linux-clang", cxx: cxx.Path, flags: flags,
			// Linked against libc++ as compiled (-stdlib=libc++ is a common
			// flag), not the host compiler's default libstdc++.
			ldArgs: []string{"-stdlib=libc++", "-Wl,--whole-archive", "-L" + filepath.Join(native, "lib"), "-lnative", "-Wl,--no-whole-archive", "-lpthread"}}, true
	case "aarch64":
		ndk := env.ResolveSDK(*d.SDK("android_ndk"))
		p.Require(ndk)
		if !ndk.OK() {
			return htpVariant{}, false
		}
		// The QNN HTP headers include the Hexagon tools' libnative headers
		// (hexagon_protos.h) on every platform: the vendor's aarch64 build
		// takes the x86 build's C flags, their include included.
		root, tools := pinDirs(env, base, hexagon.Path, "X86", d.HTP.X86)
		native := filepath.Join(root, "tools", "HEXAGON_Tools", tools, "Tools", "libnative")
		if !requirePath(p, "libnative headers for the aarch64 build", native, hexagon,
			"HEXAGON_SDK_ROOT (or HEXAGON_SDK_ROOT_X86 and HEXAGON_TOOLS_VERSION_X86)", d.HTP.X86.SDK+" with Hexagon tools "+d.HTP.X86.Tools) {
			return htpVariant{}, false
		}
		tc := filepath.Join(ndk.Path, "toolchains", "llvm", "prebuilt", "linux-x86_64")
		flags := append([]string{fmt.Sprintf("--target=aarch64-none-linux-android%d", d.HTP.AndroidAPI), "--sysroot=" + filepath.Join(tc, "sysroot"), "-static-libstdc++"}, d.HTP.Flags.AArch64...)
		flags = append(flags, "-I"+filepath.Join(native, "include"))
		lib := ""
		if qnn.OK() {
			lib = filepath.Join(qnn.Path, d.HTP.QNNTargetLib)
			if !requirePath(p, "QNN aarch64 libraries", lib, qnn, "QNN_SDK_ROOT", "the QNN SDK's "+d.HTP.QNNTargetLib) {
				return htpVariant{}, false
			}
		}
		return htpVariant{name: name, dir: "aarch64-android", cxx: filepath.Join(tc, "bin", "clang++"), flags: flags,
			ldArgs: []string{"-L" + lib, "-lQnnHtp", "-lQnnHtpPrepare"}}, true
	}
	for _, pin := range d.HTP.Archs {
		if pin.Arch != name {
			continue
		}
		up := strings.ToUpper(pin.Arch)
		root, tools := pinDirs(env, base, hexagon.Path, up, pin)
		cxx := filepath.Join(root, "tools", "HEXAGON_Tools", tools, "Tools", "bin", "hexagon-clang++")
		if !requirePath(p, "hexagon-clang++ for "+pin.Arch, cxx, hexagon,
			fmt.Sprintf("HEXAGON_SDK_ROOT (or HEXAGON_SDK_ROOT_%s and HEXAGON_TOOLS_VERSION_%s)", up, up), pin.SDK+" with Hexagon tools "+pin.Tools) {
			return htpVariant{}, false
		}
		flags := append(append([]string{}, d.HTP.Flags.Hexagon...), "-m"+pin.Arch,
			"-I"+filepath.Join(root, "rtos", "qurt", "compute"+pin.Arch, "include", "qurt"),
			"-I"+filepath.Join(root, "rtos", "qurt", "compute"+pin.Arch, "include", "posix"),
			"-I"+filepath.Join(root, "incs"), "-I"+filepath.Join(root, "incs", "stddef"))
		return htpVariant{name: name, dir: "hexagon-" + pin.Arch, cxx: cxx, flags: flags}, true
	}
	return htpVariant{}, false
}

// pinDirs gives the Hexagon SDK directory and tools version of a pin, as
// the generated Makefile does: the per-arch variables when set; else the
// pinned SDK beside HEXAGON_SDK_ROOT when it is installed, else the one
// SDK HEXAGON_SDK_ROOT names; and the pinned tools version when that SDK
// has it, else the newest it has. One installed SDK so serves every arch.
func pinDirs(env toolchain.Env, base, sdkRoot, up string, pin HexagonPin) (string, string) {
	root := env.Getenv("HEXAGON_SDK_ROOT_" + up)
	if root == "" {
		root = filepath.Join(base, pin.SDK)
		if _, err := env.Stat(root); err != nil && sdkRoot != "" {
			root = filepath.Clean(sdkRoot)
		}
	}
	tools := env.Getenv("HEXAGON_TOOLS_VERSION_" + up)
	if tools == "" {
		tools = pin.Tools
		toolsDir := filepath.Join(root, "tools", "HEXAGON_Tools")
		if _, err := env.Stat(filepath.Join(toolsDir, tools)); err != nil {
			if newest := env.Newest(filepath.Join(toolsDir, "*")); newest != "" {
				tools = filepath.Base(newest)
			}
		}
	}
	return root, tools
}

// requirePath records in p a missing file or directory derived from an SDK.
func requirePath(p *buildplan.Plan, what, path string, from toolchain.Found, variables, want string) bool {
	if from.OK() {
		if _, err := p.Stat(path); err == nil {
			return true
		}
		p.Missing = append(p.Missing, toolchain.Found{Name: what, Kind: "file",
			Problem: fmt.Sprintf("not found at %s; install %s there, or set %s", path, want, variables)})
		return false
	}
	p.Missing = append(p.Missing, toolchain.Found{Name: what, Kind: "file",
		Problem: fmt.Sprintf("the %s was not found: set %s (wanted: %s)", strings.SplitN(from.Description, " (", 2)[0], variables, want)})
	return false
}
