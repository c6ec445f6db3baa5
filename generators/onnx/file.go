package onnx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MaxFileSize is protobuf's limit on one serialized message: larger
// models keep their weights as external data.
const MaxFileSize = 2<<30 - 1

// ReadFile reads and decodes the model at path.
func ReadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s is over 2 GiB, the protobuf limit: an ONNX model this large must keep its weights as external data", path)
	}
	// One allocation of the file's size: models are large.
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s is empty", path)
	}
	m, err := Read(data)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) && fe.Limit {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("%s is not a valid ONNX model: %w", path, err)
		}
		return nil, err
	}
	return m, nil
}

// ExternalFiles lists the distinct files the model's external data lives
// in, as written in the model (relative to the model's directory), sorted.
func (m *Model) ExternalFiles() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range m.External {
		if !seen[r.Location] {
			seen[r.Location] = true
			out = append(out, r.Location)
		}
	}
	sort.Strings(out)
	return out
}

// CheckExternalLocation refuses locations ONNX forbids: empty, absolute,
// or leading out of the model's directory.
func CheckExternalLocation(loc string) error {
	switch {
	case loc == "":
		return errors.New("external data without a location")
	case filepath.IsAbs(loc) || strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, `\`):
		return fmt.Errorf("external data location %q is absolute; ONNX requires a path relative to the model", loc)
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(loc)))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("external data location %q leads outside the model's directory", loc)
	}
	return nil
}
