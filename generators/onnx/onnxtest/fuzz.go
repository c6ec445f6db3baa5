package onnxtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// AddSeeds adds the models of the golden import cases
// (testdata/onnx/*/model.onnx, from a package two levels below the
// repository root) to a fuzz target's corpus.
func AddSeeds(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/onnx/*/*.onnx")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
}

// Deadline panics, naming the input, when the work on data outlives
// limit: a fuzz target's guard against hangs. Call the returned stop
// when done.
func Deadline(limit time.Duration, data []byte) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(limit):
			panic(fmt.Sprintf("input took over %s: %q", limit, data))
		}
	}()
	return func() { close(done) }
}
