//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package atomicfile

// mapPopulate: these kernels fault a mapping's pages in as they are read.
const mapPopulate = 0
