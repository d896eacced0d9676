package checkpoint

import (
	"encoding/binary"
	"errors"
	"math"
)

// Writer encodes a learner's state: integers as varints, floats by their
// bits, so a state read back is bit for bit the one written.
type Writer struct{ b []byte }

// Bytes returns what was written.
func (w *Writer) Bytes() []byte { return w.b }

// Int writes an int.
func (w *Writer) Int(v int) { w.b = binary.AppendVarint(w.b, int64(v)) }

// Uint64 writes a uint64.
func (w *Writer) Uint64(v uint64) { w.b = binary.AppendUvarint(w.b, v) }

// Float writes a float64 exactly.
func (w *Writer) Float(v float64) { w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v)) }

// Bool writes a bool.
func (w *Writer) Bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

// String writes a string.
func (w *Writer) String(s string) { w.Blob([]byte(s)) }

// Blob writes a byte slice.
func (w *Writer) Blob(p []byte) {
	w.b = binary.AppendUvarint(w.b, uint64(len(p)))
	w.b = append(w.b, p...)
}

// Ints writes an int slice.
func (w *Writer) Ints(v []int) {
	w.Int(len(v))
	for _, x := range v {
		w.Int(x)
	}
}

// Floats writes a float64 slice exactly.
func (w *Writer) Floats(v []float64) {
	w.Int(len(v))
	for _, x := range v {
		w.Float(x)
	}
}

// Bytes8 writes a uint8 slice.
func (w *Writer) Bytes8(v []uint8) { w.Blob(v) }

// Reader decodes what a Writer wrote. Its first error sticks: every later
// read returns zero values, and Err reports it.
type Reader struct {
	b   []byte
	err error
}

// NewReader returns a reader of b (a Writer's Bytes, e.g. a Blob read
// from a checkpoint's state).
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// errShort is the error of a state cut short.
var errShort = errors.New("checkpoint: the state is cut short or malformed")

// Err returns the first decoding error, and one if bytes are left over
// when done is true.
func (r *Reader) Err(done bool) error {
	if r.err == nil && done && len(r.b) > 0 {
		return errors.New("checkpoint: bytes left after the state")
	}
	return r.err
}

func (r *Reader) fail() { r.err, r.b = errShort, nil }

// Int reads an int.
func (r *Reader) Int() int {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

// Uint64 reads a uint64.
func (r *Reader) Uint64() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Float reads a float64.
func (r *Reader) Float() float64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

// Bool reads a bool.
func (r *Reader) Bool() bool {
	if len(r.b) < 1 || r.b[0] > 1 {
		r.fail()
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

// Blob reads a byte slice (a copy).
func (r *Reader) Blob() []byte {
	n := r.Uint64()
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	p := append([]byte(nil), r.b[:n]...)
	r.b = r.b[n:]
	return p
}

// String reads a string.
func (r *Reader) String() string { return string(r.Blob()) }

// Bytes8 reads a uint8 slice.
func (r *Reader) Bytes8() []uint8 { return r.Blob() }

// count reads a slice length, refusing one longer than the bytes left
// (each element takes at least one).
func (r *Reader) count() int {
	n := r.Int()
	if r.err != nil || n < 0 || n > len(r.b) {
		r.fail()
		return 0
	}
	return n
}

// Ints reads an int slice.
func (r *Reader) Ints() []int {
	n := r.count()
	v := make([]int, n)
	for i := range v {
		v[i] = r.Int()
	}
	return v
}

// Floats reads a float64 slice.
func (r *Reader) Floats() []float64 {
	n := r.count()
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float()
	}
	return v
}
