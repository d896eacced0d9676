package learn_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit/learn"
)

func TestDemoProblems(t *testing.T) {
	for _, small := range []bool{false, true} {
		ps := learn.DemoProblems(3, small)
		n := map[bool][2]int{false: {600, 3000}, true: {240, 600}}[small]
		if len(ps) != 2 || ps[0].Name != "two-moons" || ps[1].Name != "ringnorm-20d" {
			t.Fatalf("problems %v", ps)
		}
		for i, p := range ps {
			if p.Train.Len()+p.Test.Len() != n[i] || p.Train.Len() != n[i]*2/3 || p.Train.Dim() != []int{2, 20}[i] {
				t.Errorf("small %v %s: %d+%d rows of %d features", small, p.Name, p.Train.Len(), p.Test.Len(), p.Train.Dim())
			}
		}
	}
}

func TestDemoReport(t *testing.T) {
	te := 0.125
	c := 10.0
	rep := &learn.DemoReport{Backend: "go", Reason: "asked\nfor", Out: "dir", Files: []string{"dir/a.train"}, Results: []learn.DemoResult{
		{Problem: "p", Result: learn.Result{Algorithm: "svm", Backend: "go", NTrain: 8, NTest: 4, NBasis: 3, TestError: &te, TrainSeconds: 0.5}, Gamma: 4, C: &c},
		{Problem: "p", Result: learn.Result{Algorithm: "kmp", Backend: "go", NTrain: 8, NTest: 4}, Gamma: 4, Error: "boom"},
	}}
	if f := rep.Failed(); len(f) != 1 || f[0] != "p/kmp" {
		t.Fatalf("failed %v", f)
	}
	var b strings.Builder
	if err := rep.WriteText(&b, []string{"svm"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pursuit demo: backend go (asked for)\n", "12.50%", "0.500 s", "failed", "\np kmp failed: boom",
		"the training data); svm train on all of it.", "are in dir:\n  dir/a.train\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	js, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(js), `"results":[{"problem":"p","algorithm":"svm"`) || !strings.Contains(string(js), `"gamma":4,"c":10}`) {
		t.Errorf("JSON %s (%v)", js, err)
	}
}
