package learn

import (
	"strings"
	"unicode"
)

// goPackages are the project's package names, which its errors carry as
// prefixes ("svm: bad input") as Go errors do; a person reading a program's
// error line needs the what and where, not the package.
var goPackages = map[string]bool{
	"asm": true, "backend": true, "bound": true, "bpdn": true, "comm": true, "cuda": true, "data": true,
	"engine": true, "greedy": true, "kmp": true, "modelfile": true, "slmc": true, "svm": true,
}

// UserMessage turns an error's text into one line for a person (a
// program's error line): on one line, without the Go package names that
// prefix the wrapped errors, and without a part that only restates
// another: a label that the next part repeats
// ("LIBSVM model: LIBSVM model line 1: ..."), or a sentinel's text at the
// end whose words the line has already said ("... truncated or corrupted:
// ...: corrupt or truncated model file").
func UserMessage(msg string) string {
	var parts []string
	for _, p := range strings.Split(oneLine(msg), ": ") {
		if t := strings.TrimSpace(p); !goPackages[t] && !isPackageFunc(t) {
			parts = append(parts, p)
		}
	}
	var kept []string
	for i, p := range parts {
		t := strings.TrimSpace(p)
		if i+1 < len(parts) && i > 0 && t != "" && strings.HasPrefix(strings.ToLower(strings.TrimSpace(parts[i+1])), strings.ToLower(t)) {
			continue // a label the next part begins with
		}
		if i == len(parts)-1 && len(kept) > 0 && len(words(t)) >= 3 && 4*sharedWords(strings.Join(kept, " "), words(t)) >= 3*len(words(t)) {
			continue // the end restates what was said
		}
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		return oneLine(msg)
	}
	return strings.Join(kept, ": ")
}

// isPackageFunc reports whether s is a package-qualified Go name such as
// "asm.New" or "slmc.ModifiedRS".
func isPackageFunc(s string) bool {
	pkg, name, ok := strings.Cut(s, ".")
	return ok && goPackages[pkg] && name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// words returns the lower-case stems (first five letters) of s's words of
// three letters or more.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) >= 3 {
			out = append(out, w[:min(5, len(w))])
		}
	}
	return out
}

// sharedWords counts the stems of ws that are among text's.
func sharedWords(text string, ws []string) int {
	have := map[string]bool{}
	for _, w := range words(text) {
		have[w] = true
	}
	n := 0
	for _, w := range ws {
		if have[w] {
			n++
		}
	}
	return n
}

// IsPackageName reports whether s, a part of an error's text between
// colons, is one of the module's Go package names or a package-qualified
// name such as "asm.New": what UserMessage drops.
func IsPackageName(s string) bool { return goPackages[s] || isPackageFunc(s) }

// oneLine folds a message onto one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
