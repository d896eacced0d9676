package modelfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxPayload bounds the payload length read from a header (1 TiB), so that
// a corrupt length fails cleanly instead of asking for absurd memory.
const MaxPayload = 1 << 40

var (
	// ErrCorrupt is wrapped by Read's errors for truncated or damaged
	// frames.
	ErrCorrupt = errors.New("corrupt or truncated model file")
	// ErrMagic is wrapped by Read's error for data that do not start with
	// the expected magic string (another kind of file).
	ErrMagic = errors.New("wrong kind of file (bad magic)")
)

// Write writes one frame: magic, version, payload length, payload and the
// SHA-256 of everything before it (header and payload).
func Write(w io.Writer, magic string, version uint32, payload []byte) error {
	if magic == "" {
		return errors.New("modelfile: empty magic")
	}
	hdr := make([]byte, 0, len(magic)+12)
	hdr = append(hdr, magic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, version)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(payload)))
	h := sha256.New()
	h.Write(hdr)
	h.Write(payload)
	sum := h.Sum(nil)
	for _, b := range [][]byte{hdr, payload, sum} {
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("modelfile: write: %w", err)
		}
	}
	return nil
}

// Read reads one frame written by Write with the same magic and returns
// its version and payload. It reads r to its end: bytes after the checksum
// are an error. The caller decides which versions it understands; Read
// checks the version only through accept, which (when not nil) is called
// before the payload is read and may refuse it with an error.
func Read(r io.Reader, magic string, accept func(version uint32) error) (uint32, []byte, error) {
	return ReadLegacy(r, magic, accept, nil)
}

// ReadLegacy is Read for a format whose early versions predate this frame
// and checksummed the payload alone (kmp's version 1 files): for the
// versions where payloadOnly returns true the SHA-256 is checked over the
// payload only; every other check is Read's.
func ReadLegacy(r io.Reader, magic string, accept func(version uint32) error, payloadOnly func(version uint32) bool) (uint32, []byte, error) {
	if magic == "" {
		return 0, nil, errors.New("modelfile: empty magic")
	}
	hdr := make([]byte, len(magic)+12)
	n, err := io.ReadFull(r, hdr)
	switch {
	case err != nil && !isEOF(err):
		return 0, nil, fmt.Errorf("modelfile: reading the header: %w", err)
	case n == 0:
		return 0, nil, fmt.Errorf("modelfile: empty input: %w", ErrCorrupt)
	case !bytes.HasPrefix([]byte(magic), hdr[:min(n, len(magic))]):
		return 0, nil, fmt.Errorf("modelfile: does not start with %q: %w", magic, ErrMagic)
	case err != nil:
		return 0, nil, fmt.Errorf("modelfile: header cut short after %d of %d bytes: %w", n, len(hdr), ErrCorrupt)
	}
	version := binary.LittleEndian.Uint32(hdr[len(magic):])
	if accept != nil {
		if err := accept(version); err != nil {
			return version, nil, err
		}
	}
	size := binary.LittleEndian.Uint64(hdr[len(magic)+4:])
	if size > MaxPayload {
		return version, nil, fmt.Errorf("modelfile: payload length %d is implausible: %w", size, ErrCorrupt)
	}
	var payload bytes.Buffer
	if got, err := io.CopyN(&payload, r, int64(size)); err != nil {
		if !isEOF(err) {
			return version, nil, fmt.Errorf("modelfile: reading the payload: %w", err)
		}
		return version, nil, fmt.Errorf("modelfile: payload cut short (%d of %d bytes): %w", got, size, ErrCorrupt)
	}
	var sum [sha256.Size]byte
	if got, err := io.ReadFull(r, sum[:]); err != nil {
		if !isEOF(err) {
			return version, nil, fmt.Errorf("modelfile: reading the checksum: %w", err)
		}
		return version, nil, fmt.Errorf("modelfile: checksum cut short (%d of %d bytes): %w", got, sha256.Size, ErrCorrupt)
	}
	h := sha256.New()
	if payloadOnly == nil || !payloadOnly(version) {
		h.Write(hdr)
	}
	h.Write(payload.Bytes())
	if !bytes.Equal(h.Sum(nil), sum[:]) {
		return version, nil, fmt.Errorf("modelfile: checksum mismatch: %w", ErrCorrupt)
	}
	var one [1]byte
	switch extra, err := io.ReadFull(r, one[:]); {
	case extra > 0:
		return version, nil, fmt.Errorf("modelfile: trailing bytes after the checksum: %w", ErrCorrupt)
	case err != nil && !isEOF(err):
		return version, nil, fmt.Errorf("modelfile: reading past the checksum: %w", err)
	}
	return version, payload.Bytes(), nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }
