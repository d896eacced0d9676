package checkpoint

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// TestPackBytes: bytes of every length up to 20 (each value 0…255) come
// back whole through PackBytes and UnpackBytes, records in a row are read
// one after another, every value is an integer below 2⁴⁸, and malformed
// records are refused.
func TestPackBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all []float64
	var want [][]byte
	for n := range 21 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		if n > 0 {
			b[n-1] = 255
		}
		all = PackBytes(all, b)
		want = append(want, b)
	}
	for _, v := range all {
		if v != math.Trunc(v) || v < 0 || v >= 1<<48 {
			t.Fatalf("packed value %v is not an integer below 2^48", v)
		}
	}
	rest := all
	for n, w := range want {
		got, r, ok := UnpackBytes(rest)
		if !ok || !bytes.Equal(got, w) {
			t.Fatalf("record %d: got %v (ok %v), want %v", n, got, ok, w)
		}
		rest = r
	}
	if len(rest) != 0 {
		t.Fatalf("%d values left after the records", len(rest))
	}
	for name, v := range map[string][]float64{
		"empty":            nil,
		"a length too big": {13, 1, 2},
		"a negative size":  {-1},
		"a fraction":       {1.5, 3},
		"a word too big":   {6, 1 << 48},
		"a NaN word":       {1, math.NaN()},
	} {
		if _, _, ok := UnpackBytes(v); ok {
			t.Errorf("%s: %v accepted", name, v)
		}
	}
}

// TestDataAcross: on in-process ranks every rank gets the same entry,
// naming every rank's rows together and the number of ranks; the rows
// split otherwise or a changed value give another digest; one rank (nil)
// gives Data's entry.
func TestDataAcross(t *testing.T) {
	x := pursuit.NewMatrix(9, 3)
	y := make([]float64, 9)
	for i := range x.Data {
		x.Data[i] = float32(i%7) - 2
	}
	for i := range y {
		y[i] = float64(i % 2)
	}
	across := func(n int, bounds []int, x pursuit.Matrix) []Entry {
		out := make([]Entry, n)
		var mu sync.Mutex
		if err := comm.Run(n, func(c comm.Comm) error {
			r := c.Rank()
			e, err := DataAcross("d", x.Slice(bounds[r], bounds[r+1], 0, x.Cols), y[bounds[r]:bounds[r+1]], c)
			mu.Lock()
			out[r] = e
			mu.Unlock()
			return err
		}); err != nil {
			t.Fatal(err)
		}
		for r := range out {
			if out[r] != out[0] {
				t.Fatalf("rank %d's entry %q differs from rank 0's %q", r, out[r].Value, out[0].Value)
			}
		}
		return out
	}
	a := across(2, []int{0, 4, 9}, x)[0]
	if !strings.Contains(a.Value, "9 rows × 3 features on 2 ranks") {
		t.Errorf("entry %q does not name every rank's rows and the ranks", a.Value)
	}
	if b := across(2, []int{0, 5, 9}, x)[0]; b == a {
		t.Errorf("rows split otherwise: the same entry %q", a.Value)
	}
	if b := across(3, []int{0, 4, 4, 9}, x)[0]; b == a || !strings.Contains(b.Value, "on 3 ranks") {
		t.Errorf("three ranks (one empty): entry %q, two ranks' %q", b.Value, a.Value)
	}
	z := pursuit.NewMatrix(9, 3)
	copy(z.Data, x.Data)
	z.Data[25] += 0.5
	if b := across(2, []int{0, 4, 9}, z)[0]; b == a {
		t.Errorf("a changed value: the same entry %q", a.Value)
	}
	if one, err := DataAcross("d", x, y, nil); err != nil || one != Data("d", x, y) {
		t.Errorf("one rank: %q (%v), want Data's %q", one.Value, err, Data("d", x, y).Value)
	}
}
