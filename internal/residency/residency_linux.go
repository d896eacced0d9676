//go:build linux

package residency

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"
)

// mapping is one mapping of /proc/self/smaps: its address range, its
// permissions, inode and path, and how much of it is anonymous memory
// (pages of a private file mapping that were written, copied on write).
type mapping struct {
	lo, hi    uintptr
	perms     string
	inode     string
	path      string
	anonymous bool
}

// mappings returns the process's mappings, from /proc/self/smaps.
func mappings() ([]mapping, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ms []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		// A field line ("Anonymous:      12 kB") of the last mapping.
		if strings.HasSuffix(fields[0], ":") {
			if fields[0] == "Anonymous:" && len(ms) > 0 && len(fields) > 1 && fields[1] != "0" {
				ms[len(ms)-1].anonymous = true
			}
			continue
		}
		// A mapping's header: address perms offset dev inode [path].
		if len(fields) < 5 {
			continue
		}
		m := mapping{perms: fields[1], inode: fields[4]}
		if len(fields) > 5 {
			m.path = fields[5]
		}
		if _, err := fmt.Sscanf(fields[0], "%x-%x", &m.lo, &m.hi); err != nil {
			continue
		}
		ms = append(ms, m)
	}
	return ms, sc.Err()
}

// dontNeed advises the n bytes at address p (page aligned) MADV_DONTNEED.
func dontNeed(p, n uintptr) bool {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, p, n, syscall.MADV_DONTNEED)
	return errno == 0
}

// ReleaseProgram gives back the resident pages of the program file's
// mappings that cannot be written (its code, read-only data and symbol
// tables) and returns the bytes advised.
func ReleaseProgram() int64 {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0
	}
	ms, err := mappings()
	if err != nil {
		return 0
	}
	var n int64
	for _, m := range ms {
		// A mapping that is read-only now may have been written before
		// (RELRO: the relocated GOT of a cgo binary is made read-only
		// after the dynamic loader writes it); its written pages are
		// anonymous, and advising them would bring back the file's
		// unrelocated bytes. Such a mapping is left alone.
		if m.path != exe || m.inode == "0" || m.anonymous || strings.ContainsAny(m.perms, "w") || !strings.HasSuffix(m.perms, "p") {
			continue
		}
		if dontNeed(m.lo, m.hi-m.lo) {
			n += int64(m.hi - m.lo)
		}
	}
	return n
}

// ReleaseFileData gives back the resident pages that lie wholly inside
// each of the byte slices, and returns the bytes advised. The caller
// guarantees that the bytes are never written: data embedded in the
// program (a //go:embed []byte variable, say) that nothing modifies. A
// slice's pages are advised only when it lies in one private mapping of a
// file; the partial pages at its ends, which hold other data, are left
// alone.
func ReleaseFileData(data ...[]byte) int64 {
	ms, err := mappings()
	if err != nil {
		return 0
	}
	page := uintptr(os.Getpagesize())
	var n int64
	for _, b := range data {
		if len(b) == 0 {
			continue
		}
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		lo, hi := (p+page-1)&^(page-1), (p+uintptr(len(b)))&^(page-1)
		if hi <= lo {
			continue
		}
		for _, m := range ms {
			// The slice's own pages were never written (the caller's
			// guarantee), though others of its mapping may have been.
			if lo >= m.lo && hi <= m.hi && m.inode != "0" && strings.HasSuffix(m.perms, "p") {
				if dontNeed(lo, hi-lo) {
					n += int64(hi - lo)
				}
				break
			}
		}
	}
	return n
}
