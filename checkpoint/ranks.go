package checkpoint

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/pursuit-ml/pursuit"
)

// Ranks is what the checkpoints of a run split across ranks need of its
// communicator (engine.Group has it).
type Ranks interface {
	Rank() int
	Size() int
	// AllreduceSum replaces buf on every rank by the element-wise sum of
	// every rank's buf.
	AllreduceSum(buf []float64) error
}

// DataAcross is the data entry of every rank's rows together, a
// collective: the number of rows of every rank, the features, the number
// of ranks and the SHA-256 of the ranks' own Data digests in rank order.
// Every rank returns the same entry. g nil, or of one rank, gives Data's.
func DataAcross(name string, x pursuit.Matrix, y []float64, g Ranks) (Entry, error) {
	own := Data(name, x, y)
	if g == nil || g.Size() <= 1 {
		return own, nil
	}
	// Each rank's digest in 16-bit pieces (exact in float64) in its own
	// slots, and its row count; the sum gives every rank all of them.
	const pieces = 16
	n, r := g.Size(), g.Rank()
	buf := make([]float64, n*(pieces+1))
	d := sha256.Sum256([]byte(own.Value))
	for i := range pieces {
		buf[r*(pieces+1)+i] = float64(binary.LittleEndian.Uint16(d[2*i:]))
	}
	buf[r*(pieces+1)+pieces] = float64(x.Rows)
	if err := g.AllreduceSum(buf); err != nil {
		return Entry{}, fmt.Errorf("checkpoint: digesting every rank's %s: %w", name, err)
	}
	h := sha256.New()
	rows := 0
	var b [2]byte
	for k := range n {
		for i := range pieces {
			binary.LittleEndian.PutUint16(b[:], uint16(buf[k*(pieces+1)+i]))
			h.Write(b[:])
		}
		rows += int(buf[k*(pieces+1)+pieces])
	}
	return Entry{Name: name, Value: fmt.Sprintf("%d rows × %d features on %d ranks, sha256 %s", rows, x.Cols, n, hex.EncodeToString(h.Sum(nil)[:8]))}, nil
}

// PackBytes packs b into float64 values that hold 6 bytes each (integers
// below 2⁴⁸, exact in a float64 and never NaN), after one value holding
// len(b): a state in bytes can then travel in the collectives of float64
// that ranks share (engine.Group.Gatherv). UnpackBytes reverses it.
func PackBytes(dst []float64, b []byte) []float64 {
	dst = append(dst, float64(len(b)))
	for i := 0; i < len(b); i += 6 {
		var v uint64
		for k := min(i+6, len(b)) - 1; k >= i; k-- {
			v = v<<8 | uint64(b[k])
		}
		dst = append(dst, float64(v))
	}
	return dst
}

// UnpackBytes reads one PackBytes record from the front of v and returns
// its bytes and the values after it; ok is false when v does not start
// with a whole, well-formed record.
func UnpackBytes(v []float64) (b []byte, rest []float64, ok bool) {
	if len(v) == 0 {
		return nil, nil, false
	}
	n := v[0]
	if !(n >= 0 && n <= 6*float64(len(v)-1)) || n != math.Trunc(n) {
		return nil, nil, false
	}
	words := (int(n) + 5) / 6
	b = make([]byte, 0, int(n))
	for _, w := range v[1 : 1+words] {
		if !(w >= 0 && w < 1<<48) || w != math.Trunc(w) {
			return nil, nil, false
		}
		u := uint64(w)
		for k := 0; k < 6 && len(b) < int(n); k++ {
			b = append(b, byte(u))
			u >>= 8
		}
	}
	return b, v[1+words:], true
}
