// Package schemas embeds the published schemas: opdef.schema.json (the YAML
// OpDef format, also what editors use through the yaml-language-server
// modeline), qnn-opdef.xsd (QNN op-package XML, for editors) and the
// toolchain descriptor schema.
package schemas

import _ "embed"

// OpDefJSON is the JSON Schema (2020-12) of the YAML OpDef format.
//
//go:embed opdef.schema.json
var OpDefJSON []byte

// QNNOpDefXSD is the XML Schema of QNN op-package configs, for editors.
//
//go:embed qnn-opdef.xsd
var QNNOpDefXSD []byte

// ToolchainJSON is the JSON Schema of toolchains/*.yaml.
//
//go:embed toolchain.schema.json
var ToolchainJSON []byte

// ToolchainURL is the $id of ToolchainJSON.
const ToolchainURL = "https://opforge.dev/schemas/toolchain.schema.json"

// OpDefURL is the $id of OpDefJSON.
const OpDefURL = "https://opforge.dev/schemas/opdef.schema.json"
