package main

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/internal/onnxrt"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestCompressONNX: compressed models go out as ONNX (issue 35 through
// issue 29's export). A binary pursuit SVM and a three-class one-vs-one
// LIBSVM model are compressed with SLMC, exported with export --format
// onnx and run by onnxruntime: its labels must equal pursuit predict's and
// its scores — the binary machine's decision, or each pair's, in LIBSVM's
// pair order — pursuit predict --decision's to onnxTol (relative, taken
// against 1 for decisions below 1 in size).
func TestCompressONNX(t *testing.T) {
	rt := onnxrt.Require(t)
	dir := t.TempDir()
	train, test := moonsFiles(t, dir)
	svmModel := filepath.Join(dir, "moons-svm.model")
	mustRun(t, dir, "train", "--data", train, "--algo", "svm", "--gamma", "4", "--c", "10", "--model", svmModel, "--quiet")

	blobs := threeClass(240)
	blobsTrain := filepath.Join(dir, "blobs.train")
	writeData(t, blobsTrain, blobs)
	lib := filepath.Join(dir, "blobs.libsvm")
	writeLIBSVMModel(t, lib, blobs, svm.Params{Kernel: pursuit.NewRBF(1), C: 10})
	blobsTest := filepath.Join(dir, "blobs.test")
	// Points the model was not trained on; none at the origin, which a
	// LIBSVM file writes as a label alone, a row onnx-predict.mjs reads as
	// one dense value.
	var fresh []int
	for i := 240; i < 360; i++ {
		if i%3 != 0 || i%17 != 0 {
			fresh = append(fresh, i)
		}
	}
	writeData(t, blobsTest, threeClass(360).Subset(fresh))

	for _, c := range []struct {
		name, model, train, test string
		pairs                    int // decision values per row
	}{
		{"binary", svmModel, train, test, 1},
		{"one-vs-one", lib, blobsTrain, blobsTest, 3},
	} {
		small := filepath.Join(dir, c.name+".model")
		mustRun(t, dir, "compress", "--model", c.model, "--data", c.train, "--nz-frac", "0.2", "--max-iter", "30", "--out", small, "--quiet")
		onnx := filepath.Join(dir, c.name+".onnx")
		mustRun(t, dir, "export", "--model", small, "--format", "onnx", "--out", onnx)
		pp := filepath.Join(dir, c.name+".pred")
		mustRun(t, dir, "predict", "--model", small, "--data", c.test, "--out", pp, "--decision", "--quiet")
		ours := readColumns(t, pp)
		theirs, _, err := rt.Run(onnx, c.test)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(ours) != len(theirs) || len(ours) == 0 {
			t.Fatalf("%s: %d predictions against onnxruntime's %d", c.name, len(ours), len(theirs))
		}
		worst, bad := 0.0, 0
		for i := range ours {
			// pursuit: label, then the decisions; onnxruntime: label, then
			// −d, d for two classes (SVMClassifier's two score columns),
			// each pair's decision for more.
			if len(ours[i]) != 1+c.pairs {
				t.Fatalf("%s row %d: pursuit %v: want a label and %d decisions", c.name, i+1, ours[i], c.pairs)
			}
			want, got := ours[i][1:], theirs[i][1:]
			if c.pairs == 1 {
				if len(got) != 2 || got[0] != -got[1] {
					t.Fatalf("%s row %d: onnxruntime %v: want a label and scores −d, d", c.name, i+1, theirs[i])
				}
				got = got[1:]
			}
			if len(got) != c.pairs {
				t.Fatalf("%s row %d: onnxruntime %v: want a label and %d scores", c.name, i+1, theirs[i], c.pairs)
			}
			if ours[i][0] != theirs[i][0] {
				bad++
				t.Errorf("%s row %d: pursuit label %v (decisions %v), onnxruntime %v (scores %v)", c.name, i+1, ours[i][0], want, theirs[i][0], got)
			}
			for p := range want {
				rel := math.Abs(got[p]-want[p]) / max(1, math.Abs(want[p]))
				worst = max(worst, rel)
				if rel > onnxTol {
					if bad++; bad <= 5 {
						t.Errorf("%s row %d, decision %d: pursuit %v, onnxruntime %v (relative difference %.2g)", c.name, i+1, p+1, want[p], got[p], rel)
					}
				}
			}
		}
		t.Logf("%s: %d rows, labels equal, largest relative difference of the decisions %.2g", c.name, len(ours), worst)
	}
}
