package bench

// MP-KFDA on USPS, digit 8 against the rest (issue 12): the test error with
// at most half the SVM's support vectors as basis. LIBSVM 3.24 (γ = 1/128,
// C = 10) makes 25 errors on the 2007 test digits (1.25%) with 663 support
// vectors for this split (DESIGN.md §5); the issue asks for an error within
// one point of that with at most 331 basis vectors.
//
//	PURSUIT_MPKFDA=1 go test ./bench -run TestMPKFDAUSPS -v -timeout 30m

import (
	"os"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/greedy"
)

func TestMPKFDAUSPS(t *testing.T) {
	if os.Getenv("PURSUIT_MPKFDA") == "" {
		t.Skip("set PURSUIT_MPKFDA=1 to run the USPS MP-KFDA reproduction")
	}
	train := loadShared(t, "usps", "usps.train.gz")
	test := loadShared(t, "usps", "usps.test.gz", data.WithDim(train.Dim()))
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	const digit, svmErr, svmSV = 8, 25.0 / 2007, 663
	y, yt := signsOf(train.Y, digit), signsOf(test.Y, digit)
	kern := pursuit.NewRBF(1.0 / 128)
	t.Logf("load %s", loadAvg())
	for _, k := range []int{100, 200, 331} {
		t0 := time.Now()
		f, err := greedy.TrainKFDA(e, train.X, y, greedy.KFDAConfig{Kernel: kern, Steps: k})
		if err != nil {
			t.Fatal(err)
		}
		dt := time.Since(t0)
		dec, err := f.Decision(e, test.X)
		if err != nil {
			t.Fatal(err)
		}
		var errs int
		for i, v := range dec {
			if v*yt[i] <= 0 {
				errs++
			}
		}
		rate := float64(errs) / float64(len(yt))
		t.Logf("k = %d: %d test errors of %d (%.2f%%; SVM %.2f%% with %d SV), trained in %.1f s", len(f.Index), errs, len(yt), 100*rate, 100*svmErr, svmSV, dt.Seconds())
		if k == 331 && rate > svmErr+0.01 {
			t.Errorf("MP-KFDA with %d basis vectors: %.2f%% test error, more than one point above the SVM's %.2f%%", len(f.Index), 100*rate, 100*svmErr)
		}
	}
}
