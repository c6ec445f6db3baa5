package aipu_test

// The registry registers the op definition formats the targets own (the
// test trees hold XML opdefs) with load; nothing else here links it.
import _ "github.com/opforge/opforge/generators/registry"
