package modelfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/pursuit-ml/pursuit/internal/fuzzlimit"
)

// fuzzMagic is the SLMC model file's magic, so that the seeds are real
// model files (copied from slmc's corpus by TestWriteFuzzSeeds).
const fuzzMagic = "PURSUIT-SLMC\n"

var errRefused = errors.New("version refused")

func fuzzAccept(v uint32) error {
	if v == 7 {
		return fmt.Errorf("version %d: %w", v, errRefused)
	}
	return nil
}

// FuzzRead: Read never panics and reads the same from a one-byte-at-a-time
// reader. What it accepts is exactly the frame Write makes of the version
// and payload it returns. What it refuses is classified: ErrMagic when the
// data do not start like the magic, the accept function's error for a
// refused version, and ErrCorrupt for every damaged or cut frame. The input
// framed as a payload reads back unchanged.
func FuzzRead(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzRead (SLMC model files), and a few frames.
	for _, s := range [][]byte{
		nil, []byte(fuzzMagic), []byte("PURSUIT-KMP\n"),
		frameBytes(1, nil), frameBytes(7, []byte("x")), frameBytes(2, []byte(`{"a":1}`)),
		append(frameBytes(1, []byte("p")), 0),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzlimit.Timed(t, func() {
			v, p, err := Read(bytes.NewReader(in), fuzzMagic, fuzzAccept)
			v1, p1, err1 := Read(iotest.OneByteReader(bytes.NewReader(in)), fuzzMagic, fuzzAccept)
			if v != v1 || !bytes.Equal(p, p1) || fmt.Sprint(err) != fmt.Sprint(err1) {
				t.Fatalf("one byte at a time: %d %q %v, at once: %d %q %v", v1, p1, err1, v, p, err)
			}
			hdr := len(fuzzMagic) + 12
			startsLikeMagic := bytes.HasPrefix([]byte(fuzzMagic), in[:min(len(in), len(fuzzMagic))])
			switch {
			case err == nil:
				if got := frameBytes(v, p); !bytes.Equal(got, in) {
					t.Fatalf("accepted %q, which is not the frame of version %d and its payload", in, v)
				}
			case len(in) > 0 && !startsLikeMagic:
				if !errors.Is(err, ErrMagic) {
					t.Fatalf("bad magic: %v, want ErrMagic", err)
				}
			case len(in) >= hdr && v == 7:
				if !errors.Is(err, errRefused) {
					t.Fatalf("version 7: %v, want the accept function's error", err)
				}
			default:
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("damaged frame: %v, want ErrCorrupt", err)
				}
			}
			// The input as a payload.
			v, p, err = Read(bytes.NewReader(frameBytes(3, in)), fuzzMagic, fuzzAccept)
			if err != nil || v != 3 || !bytes.Equal(p, in) {
				t.Fatalf("framed payload: version %d, %d bytes, %v", v, len(p), err)
			}
		})
	})
}

func frameBytes(version uint32, payload []byte) []byte {
	var b bytes.Buffer
	if err := Write(&b, fuzzMagic, version, payload); err != nil {
		panic(err) // bytes.Buffer does not fail
	}
	return b.Bytes()
}

// TestWriteFuzzSeeds copies the SLMC model files of slmc's FuzzLoad corpus
// into FuzzRead's. It runs only with PURSUIT_WRITE_FUZZ_SEEDS=1 (after the
// slmc seeds were written).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("PURSUIT_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set PURSUIT_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzRead")
	}
	src, err := filepath.Glob(filepath.Join("..", "..", "slmc", "testdata", "fuzz", "FuzzLoad", "*"))
	if err != nil || len(src) == 0 {
		t.Fatalf("no slmc seeds to copy (%v)", err)
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range src {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		// Check it is a model file in the corpus format before copying.
		lit, ok := bytes.CutPrefix(b, []byte("go test fuzz v1\n[]byte("))
		if !ok {
			t.Fatalf("%s: not a corpus file", s)
		}
		q, err := strconv.Unquote(string(bytes.TrimSuffix(bytes.TrimSpace(lit), []byte(")"))))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if _, _, err := Read(bytes.NewReader([]byte(q)), fuzzMagic, nil); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "slmc-"+filepath.Base(s)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
