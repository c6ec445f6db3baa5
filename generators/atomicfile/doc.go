// Package atomicfile writes files so that readers and crashes never see a
// half-written file, and leaves unchanged files (and their mtimes) alone.
//
// Permissions are those given, less the process umask, as for os.WriteFile,
// cp and git: a user who asks for private files gets them.
//
// Temp-file-and-rename writes that leave unchanged files (and their mtimes)
// alone; exclusive creates and uniquely named staging directories for the
// writer.
package atomicfile
