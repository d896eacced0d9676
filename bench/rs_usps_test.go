package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/slmc"
)

// TestRSUSPS is the reduced-set part of the paper's Table 1 on USPS
// (one-vs-rest, γ = 1/128, C = 10, Nz = 5% and 10% of each digit's SV
// count): RS (greedy phase and joint refinement) and MRS on the RS vectors,
// with the ten-class test error of each. It trains the ten SVMs and no SLMC, so
// it takes a few minutes:
//
//	PURSUIT_SLMC_USPS=1 nice go test ./bench -run 'TestRSUSPS' -v -timeout 1h
func TestRSUSPS(t *testing.T) {
	slmcSkip(t)
	train, test := slmcUSPS(t)
	e := slmcEngine(t)
	dd, _ := data.Dedup(train)
	ratios := []float64{0.05, 0.10}
	methods := []string{"RS", "MRS"}
	dec := map[string]map[float64][]float64{}
	secs := map[string]float64{}
	for _, r := range ratios {
		for _, m := range methods {
			dec[fmt.Sprintf("%s %g%%", m, 100*r)] = map[float64][]float64{}
		}
	}
	dec["SVM"] = map[float64][]float64{}
	for dgt := 0.0; dgt <= 9; dgt++ {
		y, exp, svmSecs := slmcDigitSVM(t, e, dd, dgt)
		secs["SVM"] += svmSecs
		put := func(name string, m *slmc.Model) {
			f, err := m.Decision(e, test.X)
			if err != nil {
				t.Fatal(err)
			}
			dec[name][dgt] = f
		}
		put("SVM", exp.AsModel())
		line := fmt.Sprintf("digit %v: %d SVs", dgt, exp.Vectors.Rows)
		for _, r := range ratios {
			tag := fmt.Sprintf(" %g%%", 100*r)
			nz := exp.NumXVFraction(r)
			t0 := time.Now()
			rs, err := slmc.ReducedSet(exp, nz, slmc.RSOptions{})
			if err != nil {
				t.Fatal(err)
			}
			secs["RS"+tag] += time.Since(t0).Seconds()
			put("RS"+tag, rs.Model)
			line += fmt.Sprintf("; RS%s Nz=%d feature-space residual %.4f (greedy phase %.4f), decision RMS %.4f", tag, nz, rs.FeatureResidual, rs.Residuals[nz-1], rs.DecisionRMS)
			t0 = time.Now()
			mrs, err := slmc.ModifiedRS(e, dd.X, y, rs.Model, slmcC, slmc.FitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			secs["MRS"+tag] += time.Since(t0).Seconds()
			put("MRS"+tag, mrs)
		}
		t.Log(line)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nUSPS ten-class test error, γ = 1/128, C = 10: SVM %.2f%% (%.0fs)\n", 100*ovrError(dec["SVM"], test.Y), secs["SVM"])
	for _, r := range ratios {
		tag := fmt.Sprintf(" %g%%", 100*r)
		fmt.Fprintf(&sb, "Nz = %g%%:", 100*r)
		for _, m := range methods {
			fmt.Fprintf(&sb, "  %s %.2f%% (%.0fs)", m, 100*ovrError(dec[m+tag], test.Y), secs[m+tag])
		}
		sb.WriteString("\n")
	}
	sb.WriteString("paper (Table 1): 5%: RS 4.9, MRS 4.9; 10%: RS 4.7, MRS 4.8\n")
	t.Log(sb.String())
}
