// Package toolchain reads toolchains/*.yaml: per target, where each SDK and
// tool is found and which versions are pinned.
package toolchain

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// Dir is the toolchain directory relative to the repository root.
const Dir = "toolchains"

// HTP is toolchains/htp.yaml.
type HTP struct {
	Version int    `yaml:"version"`
	Target  string `yaml:"target"`
	QNN     struct {
		Env       string `yaml:"env"`
		Include   string `yaml:"include"`
		TargetLib string `yaml:"target_lib"`
	} `yaml:"qnn"`
	Hexagon struct {
		Env         string       `yaml:"env"`
		Archs       []HexagonPin `yaml:"archs"`
		X86         HexagonPin   `yaml:"x86"`
		DefaultArch string       `yaml:"default_arch"`
	} `yaml:"hexagon"`
	Android struct {
		Env string `yaml:"env"`
		API int    `yaml:"api"`
	} `yaml:"android"`
	Host struct {
		CXX string `yaml:"cxx"`
	} `yaml:"host"`
}

// HexagonPin is the Hexagon SDK directory and tools version of one arch.
type HexagonPin struct {
	Arch  string `yaml:"arch"`
	SDK   string `yaml:"sdk"`
	Tools string `yaml:"tools"`
}

// LoadHTP reads the HTP descriptor from dir.
func LoadHTP(dir string) (*HTP, error) {
	var h HTP
	if err := decode(filepath.Join(dir, "htp.yaml"), &h); err != nil {
		return nil, err
	}
	if len(h.Hexagon.Archs) == 0 {
		return nil, fmt.Errorf("%s: hexagon.archs is empty", filepath.Join(dir, "htp.yaml"))
	}
	return &h, nil
}

func decode(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}
