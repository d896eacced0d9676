//go:build !linux

package residency

// ReleaseProgram gives back the resident pages of the program file's
// read-only mappings; on this system it does nothing and returns 0.
func ReleaseProgram() int64 { return 0 }

// ReleaseFileData gives back the resident pages inside the byte slices;
// on this system it does nothing and returns 0.
func ReleaseFileData(data ...[]byte) int64 { return 0 }
