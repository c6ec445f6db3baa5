// Package filestat tells whether a file is as it was without reading it:
// its size, mtime and inode, what make and ninja trust. The inode catches
// a file replaced by another of the same size and mtime.
//
// A file's size, mtime and inode: the one identity the gen cache and the build
// engine trust to know a file is untouched without reading it.
package filestat
