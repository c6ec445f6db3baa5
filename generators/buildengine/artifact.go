package buildengine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Format is what a unit's artifact must be for the engine to trust it.
// A tool or launcher that exits 0 has said nothing about what it wrote: a
// compiler cache serving a corrupt entry, or a wrapper that writes its
// own output, is caught here before the artifact is renamed into place.
type Format string

const (
	// FormatAuto: decided by the output's name (see formatOf).
	FormatAuto Format = ""
	// FormatObject is a relocatable object (ELF ET_REL, Mach-O MH_OBJECT).
	FormatObject Format = "relocatable object"
	// FormatShared is a shared library (ELF ET_DYN, Mach-O MH_DYLIB or
	// MH_BUNDLE).
	FormatShared Format = "shared library"
	// FormatArchive is an ar archive ("!<arch>", or GNU's thin archive).
	FormatArchive Format = "ar archive"
	// FormatNonEmpty only asks that something was written: outputs whose
	// format opforge cannot tell (depfiles, vendor objects of undocumented
	// format).
	FormatNonEmpty Format = "non-empty file"
)

// formatOf is the format u's artifact must have.
func formatOf(u *Unit) Format {
	if u.Format != FormatAuto {
		return u.Format
	}
	switch strings.ToLower(filepath.Ext(u.Output)) {
	case ".o", ".obj":
		return FormatObject
	case ".so", ".dylib":
		return FormatShared
	case ".a":
		return FormatArchive
	}
	return FormatNonEmpty
}

// ELF and Mach-O file types the formats accept.
const (
	elfRel, elfDyn           = 1, 3
	machObject, machDylib    = 1, 6
	machBundle               = 8
	elfHeader32, elfHeader64 = 52, 64
)

// checkArtifact says why the file at path is not an artifact of format f,
// or nil. It reads the header only: cheap enough for every up-to-date
// check.
func checkArtifact(path string, f Format) error {
	fh, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return errors.New("no file was written")
		}
		return err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return errors.New("it is not a regular file")
	}
	if st.Size() == 0 {
		return errors.New("the file is empty")
	}
	if f == FormatNonEmpty {
		return nil
	}
	head := make([]byte, elfHeader64)
	n, _ := io.ReadFull(fh, head)
	head = head[:n]
	switch f {
	case FormatArchive:
		if strings.HasPrefix(string(head), "!<arch>\n") || strings.HasPrefix(string(head), "!<thin>\n") {
			return nil
		}
		return fmt.Errorf("it is not an ar archive (it starts with %s)", startOf(head))
	case FormatObject:
		return checkBinary(head, st.Size(), elfRel, machObject)
	case FormatShared:
		return checkBinary(head, st.Size(), elfDyn, machDylib, machBundle)
	}
	return fmt.Errorf("unknown artifact format %q", f)
}

// checkBinary checks an ELF or Mach-O header: its magic, that it is
// whole, and that its file type is one of those wanted (elfType for ELF,
// machTypes for Mach-O).
func checkBinary(head []byte, size int64, elfType uint16, machTypes ...uint32) error {
	if len(head) >= 4 && string(head[:4]) == "\x7fELF" {
		return checkELF(head, size, elfType)
	}
	if len(head) >= 16 {
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			if magic := order.Uint32(head); magic == 0xfeedface || magic == 0xfeedfacf {
				ft := order.Uint32(head[12:])
				for _, want := range machTypes {
					if ft == want {
						return nil
					}
				}
				return fmt.Errorf("it is a Mach-O file of type %d, not a %s", ft, formatName(elfType))
			}
		}
	}
	return fmt.Errorf("it is not an ELF %s (it starts with %s)", formatName(elfType), startOf(head))
}

func checkELF(head []byte, size int64, want uint16) error {
	if len(head) < 16 {
		return errors.New("it is an ELF file cut short in its header")
	}
	class, data, version := head[4], head[5], head[6]
	hsize := elfHeader64
	switch class {
	case 1:
		hsize = elfHeader32
	case 2:
	default:
		return fmt.Errorf("it has the ELF magic but no valid class (%d)", class)
	}
	var order binary.ByteOrder
	switch data {
	case 1:
		order = binary.LittleEndian
	case 2:
		order = binary.BigEndian
	default:
		return fmt.Errorf("it has the ELF magic but no valid byte order (%d)", data)
	}
	if version != 1 {
		return fmt.Errorf("it has the ELF magic but version %d", version)
	}
	if len(head) < hsize || size < int64(hsize) {
		return errors.New("it is an ELF file cut short in its header")
	}
	if t := order.Uint16(head[16:]); t != want {
		return fmt.Errorf("it is an ELF file of type %s, not a %s", elfTypeName(t), formatName(want))
	}
	// The section and program header tables must lie inside the file: a
	// truncated object says so here.
	var shoff, phoff uint64
	var phentsize, phnum, shentsize, shnum uint16
	if class == 1 {
		phoff, shoff = uint64(order.Uint32(head[28:])), uint64(order.Uint32(head[32:]))
		phentsize, phnum, shentsize, shnum = order.Uint16(head[42:]), order.Uint16(head[44:]), order.Uint16(head[46:]), order.Uint16(head[48:])
	} else {
		phoff, shoff = order.Uint64(head[32:]), order.Uint64(head[40:])
		phentsize, phnum, shentsize, shnum = order.Uint16(head[54:]), order.Uint16(head[56:]), order.Uint16(head[58:]), order.Uint16(head[60:])
	}
	for _, tab := range []struct {
		name       string
		off        uint64
		entry, num uint16
	}{{"section", shoff, shentsize, shnum}, {"program", phoff, phentsize, phnum}} {
		if tab.num == 0 {
			continue
		}
		end := tab.off + uint64(tab.entry)*uint64(tab.num)
		if end < tab.off || end > uint64(size) {
			return fmt.Errorf("it is an ELF file cut short: its %s headers end at byte %d of %d", tab.name, end, size)
		}
	}
	return nil
}

func formatName(elfType uint16) Format {
	if elfType == elfDyn {
		return FormatShared
	}
	return FormatObject
}

func elfTypeName(t uint16) string {
	switch t {
	case 0:
		return "none"
	case 1:
		return "relocatable"
	case 2:
		return "executable"
	case 3:
		return "shared object"
	case 4:
		return "core"
	}
	return fmt.Sprint(t)
}

// startOf shows the first bytes of a file, quoted, for a message.
func startOf(head []byte) string {
	if len(head) > 8 {
		head = head[:8]
	}
	return fmt.Sprintf("%q", head)
}
