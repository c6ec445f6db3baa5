// Package templates embeds the text/template files of every target,
// templates/<target>/*.tmpl, addressed by path.
package templates

import "embed"

// FS holds every target's templates.
//
//go:embed */*.tmpl
var FS embed.FS
