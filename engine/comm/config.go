package comm

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// Entry is one named part of a run's configuration (a flag, a data file),
// reduced to a digest so ranks can compare it cheaply.
type Entry struct {
	Name   string
	Digest [sha256.Size]byte
	// Note describes the value for error messages ("-gamma=0.5",
	// "sha256 1a2b3c4d…, 1048576 bytes", "unreadable: …").
	Note string
}

// Setting is the entry of a flag or any other short value.
func Setting(name, value string) Entry {
	return Entry{Name: name, Digest: sha256.Sum256([]byte(value)), Note: fmt.Sprintf("%q", value)}
}

// File is the entry of a data file: the SHA-256 of its contents. It reads
// the whole file. A file that cannot be read still gives an entry (whose
// note says why), so the rank takes part in CheckConfig and every rank
// learns that this one differs, instead of the others waiting for it.
func File(name, path string) Entry {
	f, err := os.Open(path)
	if err != nil {
		return unreadable(name, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return unreadable(name, err)
	}
	e := Entry{Name: name}
	h.Sum(e.Digest[:0])
	e.Note = fmt.Sprintf("sha256 %s…, %d bytes", hex.EncodeToString(e.Digest[:6]), n)
	return e
}

func unreadable(name string, err error) Entry {
	note := "unreadable: " + err.Error()
	return Entry{Name: name, Digest: sha256.Sum256([]byte(note)), Note: note}
}

// CheckConfig is a collective that makes sure every rank was started with
// the same configuration: the same entries, in the same order, with the
// same digests. Rank 0's entries are broadcast, each rank compares them with
// its own, and the verdicts are gathered, so every rank returns nil, or
// every rank returns an error wrapping ErrConfig that names the ranks and
// the entries that differ.
func CheckConfig(c Comm, entries []Entry) error {
	var mine []byte
	for _, e := range entries {
		mine = appendEntry(mine, e)
	}
	// Rank 0's serialised entries: length first, then the bytes.
	n := []float64{float64(len(mine))}
	if err := c.BcastFloat64(n, 0); err != nil {
		return err
	}
	ref := mine
	if c.Rank() != 0 {
		ref = make([]byte, int(n[0]))
	}
	if err := c.BcastBytes(ref, 0); err != nil {
		return err
	}
	refEntries, err := parseEntries(ref)
	if err != nil {
		return fmt.Errorf("comm: rank 0's configuration could not be decoded: %w", err)
	}
	// Verdict: −1 when this rank agrees with rank 0, else the position of
	// the first entry that differs (len when only the count differs).
	verdict := -1
	for i := 0; i < max(len(entries), len(refEntries)); i++ {
		if i >= len(entries) || i >= len(refEntries) || entries[i].Name != refEntries[i].Name || entries[i].Digest != refEntries[i].Digest {
			verdict = i
			break
		}
	}
	verdicts, err := Allgather(c, []float64{float64(verdict)})
	if err != nil {
		return err
	}
	var bad []string
	for r, v := range verdicts {
		if v < 0 {
			continue
		}
		i := int(v)
		switch {
		case i < len(refEntries):
			bad = append(bad, fmt.Sprintf("rank %d's %s differs from rank 0's (%s)", r, refEntries[i].Name, refEntries[i].Note))
		default:
			bad = append(bad, fmt.Sprintf("rank %d has more configuration entries than rank 0's %d", r, len(refEntries)))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	here := ""
	if verdict >= 0 && verdict < len(entries) {
		here = fmt.Sprintf("; here (rank %d) %s is %s", c.Rank(), entries[verdict].Name, entries[verdict].Note)
	} else if verdict >= 0 {
		here = fmt.Sprintf("; here (rank %d) only %d entries are set", c.Rank(), len(entries))
	}
	return fmt.Errorf("comm: the ranks were not started alike, stopping before training a wrong model: %s%s (start every rank with the same flags and identical data files): %w",
		strings.Join(bad, "; "), here, ErrConfig)
}

func appendEntry(b []byte, e Entry) []byte {
	for _, s := range []string{e.Name, e.Note} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return append(b, e.Digest[:]...)
}

func parseEntries(b []byte) ([]Entry, error) {
	var out []Entry
	r := bytes.NewReader(b)
	for r.Len() > 0 {
		var e Entry
		for _, s := range []*string{&e.Name, &e.Note} {
			n, err := binary.ReadUvarint(r)
			if err != nil || n > uint64(r.Len()) {
				return nil, fmt.Errorf("truncated entry %d", len(out))
			}
			buf := make([]byte, n)
			io.ReadFull(r, buf)
			*s = string(buf)
		}
		if _, err := io.ReadFull(r, e.Digest[:]); err != nil {
			return nil, fmt.Errorf("truncated digest of entry %d", len(out))
		}
		out = append(out, e)
	}
	return out, nil
}

// CommandLine writes args as a shell would take them back: an argument
// that is empty or holds anything but letters, digits and -_.,:/=+@% is
// quoted, so that different command lines give different strings (for a
// Setting that every rank compares).
func CommandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,:/=+@%", r))
		}) >= 0 {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
