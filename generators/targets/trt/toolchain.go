package trt

import "github.com/opforge/opforge/generators/toolchain"

// Descriptor is toolchains/trt.yaml: the neutral SDKs and tools, and the
// trt section.
type Descriptor struct {
	*toolchain.Descriptor
	TRT *Toolchain
}

// Toolchain is the trt section of the descriptor: the CUDA architectures
// and flags.
type Toolchain struct {
	CUDAArchs []string `yaml:"cuda_archs"`
	Flags     struct {
		NVCC []string `yaml:"nvcc"`
		CXX  []string `yaml:"cxx"`
		Link []string `yaml:"link"`
	} `yaml:"flags"`
}

// LoadToolchain reads the trt descriptor from dir (toolchains/; the built-in
// one when dir has none) with its trt section.
func LoadToolchain(dir string) (*Descriptor, error) {
	d, tc, err := toolchain.LoadWith[Toolchain](dir, "trt")
	if err != nil {
		return nil, err
	}
	return &Descriptor{Descriptor: d, TRT: tc}, nil
}
