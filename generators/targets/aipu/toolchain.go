package aipu

import "github.com/opforge/opforge/generators/toolchain"

// Descriptor is toolchains/aipu.yaml: the neutral SDKs and tools, and the
// aipu section.
type Descriptor struct {
	*toolchain.Descriptor
	AIPU *Toolchain
}

// Toolchain is the aipu section of the descriptor: the aipuocc flags. (The
// Compass targets and their -mcpu are the generator's: the build compiles
// what the generated Makefiles name.)
type Toolchain struct {
	Flags struct {
		AIPUOCC []string `yaml:"aipuocc"`
	} `yaml:"flags"`
}

// LoadToolchain reads the aipu descriptor from dir (toolchains/; the
// built-in one when dir has none) with its aipu section.
func LoadToolchain(dir string) (*Descriptor, error) {
	d, tc, err := toolchain.LoadWith[Toolchain](dir, "aipu")
	if err != nil {
		return nil, err
	}
	return &Descriptor{Descriptor: d, AIPU: tc}, nil
}
