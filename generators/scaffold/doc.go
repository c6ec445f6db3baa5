// Package scaffold holds the files `opforge init` gives a new repository:
// one commented example opdef, the opdef schema where that opdef's
// modeline finds it, and a .gitignore. The toolchain descriptors are not
// among them: the binary carries them, and a toolchains/ directory is
// written only on request, to override them.
//
// What `opforge init` gives a new repository: the example opdef and
// `.gitignore` (text in `templates/init/`), the opdef schema where the
// example's modeline finds it, and on request editable copies of the built-in
// descriptors; init writes only files that are missing.
package scaffold
