package toolchain

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/opforge/opforge/generators/schemacheck"
	"github.com/opforge/opforge/schemas"
	"github.com/opforge/opforge/toolchains"
)

// Dir is the toolchain directory relative to the repository root.
const Dir = "toolchains"

// BuiltIn prefixes the Path of a descriptor built into the binary.
const BuiltIn = "(built in) toolchains/"

// Descriptor is one toolchains/<target>.yaml.
type Descriptor struct {
	Version int    `yaml:"version"`
	Target  string `yaml:"target"`
	SDKs    []SDK  `yaml:"sdks"`
	Tools   []Tool `yaml:"tools"`
	// Launcher runs in front of every compile of the target unless a tool
	// names its own (see Launcher).
	Launcher *Launcher `yaml:"launcher"`
	// Sections holds the target's own section (pins, flags), under the
	// target's name, undecoded: the target reads it with Section.
	Sections map[string]yaml.Node `yaml:",inline"`
	// Path is the file the descriptor was read from.
	Path string `yaml:"-"`
}

// SDK is a directory found by an environment variable or a search.
type SDK struct {
	Name        string        `yaml:"name"`
	Description string        `yaml:"description"`
	Env         string        `yaml:"env"`
	Search      []string      `yaml:"search"`
	Probe       string        `yaml:"probe"`
	Version     *VersionProbe `yaml:"version"`
}

// Tool is an executable found by an environment variable, PATH or a search.
type Tool struct {
	Name        string        `yaml:"name"`
	Description string        `yaml:"description"`
	Env         string        `yaml:"env"`
	Names       []string      `yaml:"names"`
	Search      []string      `yaml:"search"`
	Version     *VersionProbe `yaml:"version"`
	// InSDK names the tool's place inside one of the descriptor's SDKs
	// (nvcc in the CUDA toolkit): when the tool's own variable is unset,
	// the SDK that was found serves it before PATH does, so pointing
	// CUDA_HOME at a toolkit is enough, and the compiler always matches
	// the headers.
	InSDK *InSDK `yaml:"in_sdk"`
	// Launcher runs in front of this tool's compiles; it overrides the
	// target's.
	Launcher *Launcher `yaml:"launcher"`
}

// InSDK is a path inside an SDK of the same descriptor.
type InSDK struct {
	SDK  string `yaml:"sdk"`
	Path string `yaml:"path"`
}

// Launcher is a program a compile runs through — a compiler cache such as
// ccache or sccache, or any wrapper taking the compiler's argv — found the
// way a tool is (variable, PATH names, search paths, version). It is
// optional: not configured or not found means compiles run directly, and a
// launcher that is set but unusable is a warning, never a failed build,
// because a shared cache is an accelerator, not a dependency. (The schema
// gives a launcher no launcher of its own.)
type Launcher Tool

// VersionProbe says how to read a version and which is the lowest that works.
type VersionProbe struct {
	Args    []string `yaml:"args"`
	File    string   `yaml:"file"`
	Pattern string   `yaml:"pattern"`
	Min     string   `yaml:"min"`
	// MinWhy says what an older version lacks; preflight and doctor
	// print it with the minimum.
	MinWhy string `yaml:"min_why"`
}

// Tool returns the tool called name, or nil.
func (d *Descriptor) Tool(name string) *Tool {
	for i := range d.Tools {
		if d.Tools[i].Name == name {
			return &d.Tools[i]
		}
	}
	return nil
}

// SDK returns the SDK called name, or nil.
func (d *Descriptor) SDK(name string) *SDK {
	for i := range d.SDKs {
		if d.SDKs[i].Name == name {
			return &d.SDKs[i]
		}
	}
	return nil
}

var (
	schemaOnce sync.Once
	schema     *schemacheck.Schema
	schemaErr  error
)

func toolchainSchema() (*schemacheck.Schema, error) {
	schemaOnce.Do(func() {
		var compiled []*schemacheck.Schema
		if compiled, schemaErr = schemacheck.Compile(schemas.ToolchainJSON); schemaErr == nil {
			schema = compiled[0]
		}
	})
	return schema, schemaErr
}

// Load reads and validates dir/<target>.yaml against the toolchain schema.
// When dir has no descriptor for the target (or dir does not exist), the
// one built into the binary serves: a repository needs a toolchains/
// directory only to override the shipped descriptors.
func Load(dir, target string) (*Descriptor, error) {
	path := filepath.Join(dir, target+".yaml")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if data, err = fs.ReadFile(toolchains.FS, target+".yaml"); err != nil {
			return nil, fmt.Errorf("no toolchain descriptor for target %q (%s does not exist, and none is built in)", target, path)
		}
		path = BuiltIn + target + ".yaml"
	}
	if err != nil {
		return nil, err
	}
	var generic any
	if err := yaml.Unmarshal(data, &generic); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	sch, err := toolchainSchema()
	if err != nil {
		return nil, fmt.Errorf("toolchain schema: %v", err)
	}
	if v := jsonValues(generic); !sch.Valid(v) {
		return nil, fmt.Errorf("%s does not match schemas/toolchain.schema.json: %v", path, sch.Explain(v))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var d Descriptor
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if d.Target != target {
		return nil, fmt.Errorf("%s: target is %q, want %q", path, d.Target, target)
	}
	for name := range d.Sections {
		if name != target {
			return nil, fmt.Errorf("%s: section %q is not the target's (%q)", path, name, target)
		}
	}
	for _, t := range d.Tools {
		if t.InSDK != nil && d.SDK(t.InSDK.SDK) == nil {
			return nil, fmt.Errorf("%s: tool %s: in_sdk names sdk %q, which this descriptor does not declare", path, t.Name, t.InSDK.SDK)
		}
	}
	d.Path = path
	return &d, nil
}

// jsonValues converts yaml.v3's generic values to the JSON data model the
// validator expects (map[string]any, []any, int64, float64).
func jsonValues(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonValues(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonValues(x)
		}
		return out
	case int:
		return int64(v)
	}
	return v
}

// LoadWith is Load with the target's own section decoded into a new S,
// the type the target declares for it (Section).
func LoadWith[S any](dir, target string) (*Descriptor, *S, error) {
	d, err := Load(dir, target)
	if err != nil {
		return nil, nil, err
	}
	section := new(S)
	if err := d.Section(section); err != nil {
		return nil, nil, err
	}
	return d, section, nil
}

// Section decodes the target's own section of the descriptor (the key
// named like the target) into v, which the target defines; unknown fields
// are errors. A descriptor without one is an error naming the file.
func (d *Descriptor) Section(v any) error {
	n, ok := d.Sections[d.Target]
	if !ok {
		return fmt.Errorf("%s has no %s section", d.Path, d.Target)
	}
	data, err := yaml.Marshal(&n)
	if err != nil {
		return fmt.Errorf("%s: %s section: %v", d.Path, d.Target, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %s section: %v", d.Path, d.Target, err)
	}
	return nil
}
