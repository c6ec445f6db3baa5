package htp

import "github.com/opforge/opforge/generators/toolchain"

// Descriptor is toolchains/htp.yaml: the neutral SDKs and tools, and the
// htp section.
type Descriptor struct {
	*toolchain.Descriptor
	HTP *Toolchain
}

// Toolchain is the htp section of the descriptor: the Hexagon pins and
// flags.
type Toolchain struct {
	QNNInclude   string       `yaml:"qnn_include"`
	QNNTargetLib string       `yaml:"qnn_target_lib"`
	Archs        []HexagonPin `yaml:"archs"`
	X86          HexagonPin   `yaml:"x86"`
	DefaultArch  string       `yaml:"default_arch"`
	AndroidAPI   int          `yaml:"android_api"`
	Flags        struct {
		Common  []string `yaml:"common"`
		X86     []string `yaml:"x86"`
		AArch64 []string `yaml:"aarch64"`
		Hexagon []string `yaml:"hexagon"`
		Link    []string `yaml:"link"`
	} `yaml:"flags"`
}

// HexagonPin is the Hexagon SDK directory and tools version of one arch.
type HexagonPin struct {
	Arch  string `yaml:"arch"`
	SDK   string `yaml:"sdk"`
	Tools string `yaml:"tools"`
}

// LoadToolchain reads the htp descriptor from dir (toolchains/; the built-in
// one when dir has none) with its htp section.
func LoadToolchain(dir string) (*Descriptor, error) {
	d, tc, err := toolchain.LoadWith[Toolchain](dir, "htp")
	if err != nil {
		return nil, err
	}
	return &Descriptor{Descriptor: d, HTP: tc}, nil
}
