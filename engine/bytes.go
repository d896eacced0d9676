package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
)

// ParseBytes parses a memory size such as 4GiB, 512MiB, 1.5GB, 64K or a
// plain byte count: IEC units (KiB … TiB) and K, M, G are powers of 1024,
// SI units (KB … TB) powers of 1000, case aside. The size must be positive;
// its error (pursuit.ErrBadInput) quotes s.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mul    float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mul := 1.0
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mul = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mul
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) || v*mul > math.MaxInt64/2 {
		return 0, pursuit.BadInputf("%q: want a positive size such as 512MiB or 8GiB", s)
	}
	return int64(v * mul), nil
}

// BytesUnitNote says how ParseBytes read s as b bytes when s's unit is not
// spelled exactly KB, MB, GB, TB (SI) or KiB, MiB, GiB, TiB (IEC), with
// the other reading, so that "512mb" or "4G" does not leave the unit open;
// "" when the spelling is exact or there is no unit.
func BytesUnitNote(s string, b int64) string {
	t := strings.TrimSpace(s)
	for _, exact := range []string{"KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "B"} {
		if strings.HasSuffix(t, exact) {
			return ""
		}
	}
	num := strings.TrimRightFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.TrimSpace(t[len(num):])
	if unit == "" {
		return ""
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil {
		return ""
	}
	letter := strings.ToUpper(unit[:1])
	si, iec := letter+"B", letter+"iB"
	siBytes := int64(v * math.Pow(1000, float64(strings.Index("KMGT", letter)+1)))
	iecBytes := int64(v * math.Pow(1024, float64(strings.Index("KMGT", letter)+1)))
	if b == siBytes {
		return fmt.Sprintf("%s taken as %s%s = %d bytes (SI units; %s%s would be %d)", s, num, si, b, num, iec, iecBytes)
	}
	return fmt.Sprintf("%s taken as %s%s = %d bytes (IEC units; %s%s would be %d)", s, num, iec, b, num, si, siBytes)
}

// CheckBudget parses a memory budget spelled s (ParseBytes; its error
// begins with setting, the name a program gives the budget, e.g. a flag)
// and says what a program may tell its user about it: note, how a
// spelling that leaves the unit open was read (BytesUnitNote, after
// setting), and warning, that the budget is more than the machine's memory
// (MachineMemory), so that it will not stop the process before the system
// does; each "" when there is nothing to say.
func CheckBudget(setting, s string) (b int64, note, warning string, err error) {
	if b, err = ParseBytes(s); err != nil {
		return 0, "", "", fmt.Errorf("%s %w", setting, err)
	}
	if n := BytesUnitNote(s, b); n != "" {
		note = setting + " " + n
	}
	if total, ok := MachineMemory(); ok && b > total {
		warning = fmt.Sprintf("%s %s is more than this machine's %s of memory: the budget will not stop the process before the system does", setting, s, FormatBytes(total))
	}
	return b, note, warning, nil
}
