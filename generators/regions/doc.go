// Package regions finds and carries over user-owned regions: the parts of
// a generated file between
//
//	// opforge:begin <key>
//	// opforge:end <key>
//
// (in the file's comment syntax). Regions are matched by key, never by
// position or surrounding text, so user code survives regeneration even
// when the opdef changes the signature around it. Everything outside the
// markers is regenerated.
//
// User-owned regions (`opforge:begin/end <key>` in any comment syntax):
// parsing with strict structure errors, merging old bodies into fresh
// skeletons by key, default-body fingerprints; `FrameHash`/`HashBytes`, the
// writer's fingerprints of a file outside its regions, hash the bytes in place
// (no copy of the file) when no line has whitespace to trim, which generated
// text never has.
package regions
