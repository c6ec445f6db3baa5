package filestat

import "syscall"

// of is os.Stat's answer without the os.FileInfo: the same call (fstatat
// following links, retried when interrupted) and the same fields FromInfo
// takes (TestOfIsFromInfo).
func of(path string) (Stat, bool) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return Stat{}, false
		}
		return Stat{Size: st.Size, MTime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Ino: st.Ino}, true
	}
}
