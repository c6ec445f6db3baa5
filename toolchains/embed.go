// Package toolchains embeds the shipped toolchain descriptors, so the
// opforge binary works in any repository: a toolchains/ directory there
// overrides a target's descriptor, and is not needed otherwise.
package toolchains

import "embed"

// FS holds <target>.yaml for every target.
//
//go:embed *.yaml
var FS embed.FS
