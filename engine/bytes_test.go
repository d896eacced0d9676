package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"4GiB": 4 << 30, "512MiB": 512 << 20, "1.5GB": 1_500_000_000, "64K": 64 << 10, "2g": 2 << 30,
		" 100 ": 100, "10B": 10, "3kb": 3000, "1TiB": 1 << 40,
	} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1GiB", "abc", "1e30TB", "NaN", "GiB"} {
		if _, err := ParseBytes(in); !errors.Is(err, pursuit.ErrBadInput) {
			t.Errorf("ParseBytes(%q): %v, want a bad-input error", in, err)
		}
	}
}

func TestBytesUnitNote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"4GiB", ""}, {"512MB", ""}, {"1000", ""},
		{"512mb", "512mb taken as 512MB = 512000000 bytes (SI units; 512MiB would be 536870912)"},
		{"4G", "4G taken as 4GiB = 4294967296 bytes (IEC units; 4GB would be 4000000000)"},
	} {
		b, err := ParseBytes(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := BytesUnitNote(c.in, b); got != c.want {
			t.Errorf("BytesUnitNote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// A value read as SI is said so.
	if got := BytesUnitNote("2k", 2000); got != "2k taken as 2KB = 2000 bytes (SI units; 2KiB would be 2048)" {
		t.Errorf("SI reading: %q", got)
	}
}

// TestCheckBudget checks the parse error, the note on a unit left open
// and the warning on a budget over the machine's memory, each naming the
// setting as given.
func TestCheckBudget(t *testing.T) {
	if _, _, _, err := CheckBudget("--mem-budget", "lots"); err == nil || !strings.HasPrefix(err.Error(), "--mem-budget \"lots\": ") {
		t.Errorf("lots: %v", err)
	}
	b, note, warning, err := CheckBudget("--mem-budget", "512MiB")
	if err != nil || b != 512<<20 || note != "" || warning != "" {
		t.Errorf("512MiB: %d %q %q %v", b, note, warning, err)
	}
	b, note, _, err = CheckBudget("budget", "4g")
	if want := "budget " + BytesUnitNote("4g", 4<<30); err != nil || b != 4<<30 || note != want || note == "budget " {
		t.Errorf("4g: %d %q %v, want the note %q", b, note, err, want)
	}
	if total, ok := MachineMemory(); ok {
		_, _, warning, err := CheckBudget("--mem-budget", "1000TiB")
		want := "--mem-budget 1000TiB is more than this machine's " + FormatBytes(total) + " of memory: the budget will not stop the process before the system does"
		if err != nil || warning != want {
			t.Errorf("1000TiB: %q %v, want %q", warning, err, want)
		}
	}
}
