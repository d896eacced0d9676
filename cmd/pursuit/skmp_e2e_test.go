package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/learn"
)

// TestSKMPFit: stochastic KMP's --fit (issue 16). On 5k rows of 20-D
// ringnorm with 30 basis functions, basic matching pursuit predicts about
// one class, while pre-fitting and back-fitting beat chance clearly; the
// default (back-fitting) is named in the output; --fit is refused for other algorithms and for an
// unknown fit, with one line and exit status 2.
func TestSKMPFit(t *testing.T) {
	dir := t.TempDir()
	tr, te := head(ringnorm(7000, 20, 5), 5000)
	train, test := filepath.Join(dir, "ring.train"), filepath.Join(dir, "ring.test")
	writeData(t, train, tr)
	writeData(t, test, te)
	testErr := func(args ...string) (float64, resultJSON) {
		t.Helper()
		r := mustRun(t, dir, append([]string{"train", "--data", train, "--test", test, "--algo", "skmp", "--basis", "30", "--json", "--quiet"}, args...)...)
		var res resultJSON
		decodeJSON(t, r.stdout, &res)
		if res.TestError == nil {
			t.Fatalf("%v: no test error in %s", args, r.stdout)
		}
		return *res.TestError, res
	}
	basic, _ := testErr("--fit", "basic")
	if basic < 0.4 {
		t.Errorf("basic MP: test error %.3f; this problem is meant to be near chance for it at 30 basis functions", basic)
	}
	for _, fit := range []string{"prefit", "backfit"} {
		e, res := testErr("--fit", fit)
		if e > 0.25 {
			t.Errorf("--fit %s: test error %.3f, want well below chance (basic MP: %.3f)", fit, e, basic)
		}
		if !strings.Contains(res.Dictionary, fit) {
			t.Errorf("--fit %s: the dictionary line %q does not say which fit ran", fit, res.Dictionary)
		}
		t.Logf("--fit %s: test error %.3f (basic %.3f)", fit, e, basic)
	}
	if _, res := testErr(); !strings.Contains(res.Dictionary, learn.DefaultSKMPFit.String()) {
		t.Errorf("without --fit the dictionary line %q does not name the default fit %s", res.Dictionary, learn.DefaultSKMPFit)
	}
	wantFail(t, dir, []string{"--fit", "bogus", "backfit, prefit or basic"}, "train", "--data", train, "--algo", "skmp", "--fit", "bogus")
	wantFail(t, dir, []string{"--fit", "backfit, prefit or basic"}, "train", "--data", train, "--algo", "skmp", "--fit", "")
	wantFail(t, dir, []string{"--fit", "auto"}, "train", "--data", train, "--algo", "skmp", "--fit", "auto")
	wantFail(t, dir, []string{"--fit", "skmp"}, "train", "--data", train, "--algo", "kmp", "--fit", "backfit")
	wantFail(t, dir, []string{"--fit", "skmp"}, "train", "--data", train, "--algo", "svm", "--fit", "prefit")
}
