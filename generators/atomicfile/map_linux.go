package atomicfile

import "syscall"

// mapPopulate maps every page at once: one call instead of a fault per
// page as the bytes are first read.
const mapPopulate = syscall.MAP_POPULATE
