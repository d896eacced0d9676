package modelfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
)

const testMagic = "TEST-MODEL\n"

func frame(t *testing.T, payload []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, testMagic, 3, payload); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, payload := range [][]byte{{}, []byte("x"), []byte(`{"a":[1,2,3]}`), bytes.Repeat([]byte{0, 255}, 5000)} {
		file := frame(t, payload)
		if want := len(testMagic) + 12 + len(payload) + 32; len(file) != want {
			t.Fatalf("frame of %d payload bytes is %d bytes, want %d", len(payload), len(file), want)
		}
		// One byte per Read exercises the readers' short reads.
		v, got, err := Read(iotest.OneByteReader(bytes.NewReader(file)), testMagic, nil)
		if err != nil {
			t.Fatalf("payload %d bytes: %v", len(payload), err)
		}
		if v != 3 || !bytes.Equal(got, payload) {
			t.Fatalf("payload %d bytes: read version %d, %d bytes back", len(payload), v, len(got))
		}
	}
}

func TestDamage(t *testing.T) {
	file := frame(t, []byte(`{"model":"some payload"}`))
	for cut := range len(file) {
		_, _, err := Read(bytes.NewReader(file[:cut]), testMagic, nil)
		if err == nil {
			t.Fatalf("truncated at %d of %d bytes: no error", cut, len(file))
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated at %d: %v does not wrap ErrCorrupt", cut, err)
		}
	}
	for i := range file {
		bad := bytes.Clone(file)
		bad[i] ^= 0x5a
		_, _, err := Read(bytes.NewReader(bad), testMagic, nil)
		if i < len(testMagic) && !errors.Is(err, ErrMagic) || i >= len(testMagic) && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: got %v", i, err)
		}
	}
	if _, _, err := Read(bytes.NewReader(append(bytes.Clone(file), 0)), testMagic, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing byte: got %v, want ErrCorrupt", err)
	}
	if _, _, err := Read(bytes.NewReader(append(bytes.Clone(file), file...)), testMagic, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("two frames: got %v, want ErrCorrupt", err)
	}
}

func TestVersionAndMagic(t *testing.T) {
	file := frame(t, []byte("p"))
	errOld := errors.New("too new")
	accept := func(v uint32) error {
		if v > 2 {
			return fmt.Errorf("version %d: %w", v, errOld)
		}
		return nil
	}
	if _, _, err := Read(bytes.NewReader(file), testMagic, accept); !errors.Is(err, errOld) {
		t.Fatalf("version refused by accept: got %v", err)
	}
	if _, _, err := Read(bytes.NewReader(file), "OTHER-MODEL\n", nil); !errors.Is(err, ErrMagic) {
		t.Fatalf("other magic: got %v, want ErrMagic", err)
	}
	if _, _, err := Read(bytes.NewReader([]byte("svm_type c_svc\n")), testMagic, nil); !errors.Is(err, ErrMagic) {
		t.Fatalf("a text file: got %v, want ErrMagic", err)
	}
	if err := Write(io.Discard, "", 1, nil); err == nil {
		t.Fatal("Write with an empty magic: no error")
	}
}

func TestReadError(t *testing.T) {
	file := frame(t, []byte("payload"))
	boom := errors.New("disk on fire")
	for cut := range len(file) + 1 {
		r := io.MultiReader(bytes.NewReader(file[:cut]), iotest.ErrReader(boom))
		_, _, err := Read(r, testMagic, nil)
		if !errors.Is(err, boom) {
			t.Fatalf("read error after %d bytes: got %v, want the reader's error", cut, err)
		}
	}
}

func TestImplausibleLength(t *testing.T) {
	file := frame(t, nil)
	for i := len(testMagic) + 4; i < len(testMagic)+12; i++ {
		file[i] = 0xff
	}
	_, _, err := Read(bytes.NewReader(file), testMagic, nil)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("length 2⁶⁴−1: got %v, want ErrCorrupt", err)
	}
}
