package learn

import (
	"fmt"
	"strings"
)

// MethodOf returns the method of the first model (Methoder), "" when the algorithm
// has none.
func MethodOf(models []Model) string {
	if len(models) == 0 {
		return ""
	}
	if m, ok := models[0].(Methoder); ok {
		return m.Method()
	}
	return ""
}

// StopSummary returns why training stopped (Stopper): the one model's reason, or,
// over several (one-vs-rest), each distinct reason with its count. "" when
// the models give none.
func StopSummary(models []Model) string {
	var order []string
	count := map[string]int{}
	for _, f := range models {
		s, ok := f.(Stopper)
		if !ok || s.StopReason() == "" {
			continue
		}
		r := s.StopReason()
		if len(models) > 1 {
			// "line search failed after 37 iterations" → "line search failed".
			if i := strings.Index(r, " after "); i > 0 {
				r = r[:i]
			}
		}
		if count[r] == 0 {
			order = append(order, r)
		}
		count[r]++
	}
	if len(order) == 0 {
		return ""
	}
	if len(models) == 1 {
		return order[0]
	}
	parts := make([]string, len(order))
	for i, r := range order {
		parts[i] = fmt.Sprintf("%s ×%d", r, count[r])
	}
	return strings.Join(parts, ", ")
}
