// Package escape turns free text (descriptions, versions, enum values,
// framework op names, ONNX node names: anything an opdef or a model may
// hold) into text that is only data in each language opforge emits. There
// is one function per context; templates reach them through the render
// func map (the names in Funcs) and Go code that builds text calls them
// directly. No function lets its input end a literal or a comment, start a
// new line, continue a line (a trailing backslash), or hold a byte the
// language's tools refuse.
//
// One escaper per emitted context, so opdef and ONNX text is only ever data:
// C/C++/CUDA/OpenCL string literals (octal escapes) and comments (no line
// splice, `*/` or trigraph), Python strings and docstrings (the value is the
// text exactly), `#` comments (Python, make, CMake), CMake strings, Markdown
// text and code spans, XML, YAML. Registered in the render func map (`cstr`,
// `ccomment`, `pystr`, `pydoc`, `hashcomment`, `cmakestr`, `mdtext`, `mdcode`,
// `xmltext`, `yamlstr`); a test fails when a template prints a free-text field
// without one.
package escape
