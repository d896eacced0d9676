package learn

import "testing"

// TestUserMessage checks that UserMessage drops the package names and the
// parts that only restate another (issue 30, item 6), on the issue's
// examples, and IsPackageName.
func TestUserMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"train svm: svm: bad input: x", "train svm: bad input: x"},
		{`load model nu.model: LIBSVM model: svm: LIBSVM model line 1: svm_type "nu_svc" is not supported`,
			`load model nu.model: LIBSVM model line 1: svm_type "nu_svc" is not supported`},
		{"the file is truncated or corrupted: modelfile: payload cut short (4974 of 30666 bytes): corrupt or truncated model file",
			"the file is truncated or corrupted: payload cut short (4974 of 30666 bytes)"},
		{`backend "cuda" is not available: asm.New: AVX2/FMA assembly backend unavailable`,
			`backend "cuda" is not available: AVX2/FMA assembly backend unavailable`},
		{"--k 0: must be at least 1", "--k 0: must be at least 1"},
		{"a\nb:  c", "a b: c"},
		{"svm", "svm"},
	} {
		if got := UserMessage(c.in); got != c.want {
			t.Errorf("%q\n→ %q\nwant %q", c.in, got, c.want)
		}
	}
	for s, want := range map[string]bool{"svm": true, "asm.New": true, "slmc.ModifiedRS": true, "svm model": false, "x.y": false, "kmp.": false} {
		if IsPackageName(s) != want {
			t.Errorf("IsPackageName(%q) = %v", s, !want)
		}
	}
}
