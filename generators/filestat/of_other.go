//go:build !linux

package filestat

func of(path string) (Stat, bool) { return ofInfo(path) }
