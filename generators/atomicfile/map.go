package atomicfile

// MapMin is the size from which MapRegular maps a file instead of reading
// it. Below it a read's fresh pages cost little, and a test process that
// runs thousands of small gens keeps no mapping of each. A variable only
// so that a test can map small files; nothing else changes it.
var MapMin int64 = 1 << 20

// MapRegular is the regular file at path (OpenRegular), read-only: mapped
// into memory where the platform can and the file holds at least MapMin
// bytes, else read.
//
// Why: reading a file of megabytes copies it into fresh memory, whose
// every page the kernel must find and zero on first touch; on a 2-core
// virtual machine that was 7-10 ms for the 7 MB of a 1,000-op package's
// sections, against about 1 ms to map the file's pages, which are in the
// page cache already.
//
// The bytes must never be written to, and they stay mapped for the life
// of the process: strings are taken as views of them (a decoded model's
// names, a section's text), and nothing can tell when the last view is
// gone. The file is read under the gen lock and only ever appended to or
// replaced by a rename, neither of which changes the bytes mapped; a
// process that truncated it meanwhile would fault the reader, which is
// why only files opforge alone writes (its caches) are mapped.
func MapRegular(path string) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() >= MapMin && fi.Size() == int64(int(fi.Size())) {
		if data, err := mapFile(f, int(fi.Size())); err == nil {
			return data, nil
		}
		// No mapping (no room, a file system that maps nothing): read.
	}
	return readAll(f, fi.Size())
}
