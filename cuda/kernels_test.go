package cuda

// Checks that need no GPU and no CUDA toolkit, run by the default
// `go test ./...`: the Go side's launch geometry and kernel arguments agree
// with kernels/kernels.cu and with the signatures in the committed PTX.
// (The kernels themselves are checked against float64 references under a CPU
// emulation by kernels/emu, run from scripts/cuda-check.sh, and on a GPU by
// the -tags cuda tests.)

import (
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return string(b)
}

func TestGeometryMatchesKernelSource(t *testing.T) {
	src := readFile(t, "kernels/kernels.cu")
	defines := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^#define (\w+) (\d+)\s*$`).FindAllStringSubmatch(src, -1) {
		v, _ := strconv.Atoi(m[2])
		defines[m[1]] = v
	}
	for name, want := range map[string]int{
		"KB_BM":      kbTile,
		"KB_BN":      kbTile,
		"KB_THREADS": kbThreads,
		"SN_THREADS": snThreads,
		"DP_THREADS": dpThreads,
		"DP_MAXV":    dpMaxVecs,
		"RU_BX":      ruBX,
		"RU_BY":      ruBY,
		"VC_THREADS": vcThreads,
		"SK_ROWS":    skRows,
		"SK_COLS":    skCols,
		"SK_THREADS": skThreads,
		"SK_WARPS":   skThreads / 32,
		"TR_TILE":    trTile,
		"TR_BY":      trBY,
	} {
		got, ok := defines[name]
		if !ok {
			t.Errorf("kernels.cu has no #define %s", name)
		} else if got != want {
			t.Errorf("#define %s %d in kernels.cu, the Go side uses %d", name, got, want)
		}
	}
	if defines["SN_THREADS"]/max(defines["SN_GROUP"], 1) != snRowsPer {
		t.Errorf("SN_THREADS/SN_GROUP = %d/%d, the Go side launches %d rows per block",
			defines["SN_THREADS"], defines["SN_GROUP"], snRowsPer)
	}
	// The conformance suite allows float32 runs of at most 32 products
	// before float64 accumulation in DictProducts.
	if r := defines["DP_RUN"]; r < 1 || r > 32 {
		t.Errorf("DP_RUN = %d, want 1..32", r)
	}
}

// ptxSignatures parses ".visible .entry name( .param .TYPE ..., ... )".
func ptxSignatures(t *testing.T, ptx string) map[string][]string {
	t.Helper()
	sigs := map[string][]string{}
	entry := regexp.MustCompile(`(?s)\.visible \.entry (\w+)\((.*?)\)`)
	param := regexp.MustCompile(`\.param \.(\w+) `)
	for _, m := range entry.FindAllStringSubmatch(ptx, -1) {
		var types []string
		for _, p := range param.FindAllStringSubmatch(m[2], -1) {
			types = append(types, p[1])
		}
		sigs[m[1]] = types
	}
	return sigs
}

func TestParamsMatchPTX(t *testing.T) {
	ptx := readFile(t, "kernels/kernels.ptx")
	if !strings.Contains(ptx, "\n.target sm_70\n") || !strings.Contains(ptx, "release 11.8,") {
		t.Errorf("kernels.ptx is not nvcc 11.8 output for target sm_70; regenerate with go generate ./cuda")
	}
	sigs := ptxSignatures(t, ptx)
	cases := map[string]params{
		nameKernelBlock:  kernelBlockParams(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 3, 0.5, 1, 3),
		nameSqNorms:      sqNormsParams(1, 2, 3, 4, 5),
		nameDictPartial:  dictPartialParams(1, 2, 3, 4, 5, 6, 7, 8, 9),
		nameDictReduce:   dictReduceParams(1, 2, 3, 4, 5),
		nameRankUpdate:   rankUpdateParams(1, 2, 3, 4, -1, 6, 7, 8, 9, 10),
		nameVecPartial:   vecPartialParams(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
		nameVecCombine:   vecCombineParams(1, 0.5, 3, 4, 5, 6, 7),
		nameBlockRowF64:  blockRowF64Params(1, 2, 3),
		nameSignMismatch: signMismatchParams(1, 2, 3, 4),
		nameCSRKernel:    csrKernelParams(1, 2, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 3, 0.5, 1, 3),
		nameCSRSqNorms:   csrSqNormsParams(1, 2, 3, 4, 5),
		nameCSRDensifyT:  csrDensifyTParams(1, 2, 3, 4, 5, 6, 7),
		nameDenseDensify: denseDensifyTParams(1, 2, 3, 4, 5, 6),
		nameFillZero:     fillZeroParams(1, 2),
		nameSMOSub:       smoSubParams(1, 2, 3, 4, 5, 6, 7, 1e-3, 9),
		nameSVMBlock:     svmBlockParams(1, 2, 3, 4, 5, 6),
		nameSVMUpdate:    svmUpdateParams(1, 2, 3, 4, 5, 6, 7, 8, 9),
	}
	if len(sigs) != len(cases) {
		t.Errorf("kernels.ptx has %d entry points, the Go side launches %d", len(sigs), len(cases))
	}
	for name, p := range cases {
		types, ok := sigs[name]
		if !ok {
			t.Errorf("kernel %s is not in kernels.ptx", name)
			continue
		}
		if len(types) != len(p.w) || len(p.w) != len(p.kinds) {
			t.Errorf("%s: PTX takes %d parameters, Go passes %d", name, len(types), len(p.w))
			continue
		}
		for i, ty := range types {
			want := byte('u')
			if ty == "f64" {
				want = 'f'
			} else if ty != "u64" && ty != "s64" && ty != "b64" {
				t.Errorf("%s parameter %d is .%s: every parameter must be 8 bytes (gorgonia.org/cu copies 8-byte words)", name, i, ty)
				continue
			}
			if p.kinds[i] != want {
				t.Errorf("%s parameter %d: PTX type .%s, Go passes kind %q", name, i, ty, p.kinds[i])
			}
		}
	}
	// A double parameter must carry the float64 bits.
	p := rankUpdateParams(0, 0, 0, 0, -0.75, 0, 0, 0, 0, 0)
	if p.w[4] != 0xBFE8000000000000 {
		t.Errorf("alpha = -0.75 passed as %#x", p.w[4])
	}
}

func TestDictChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	check := func(rows, cols, sms int) {
		chunk, n := dictChunks(rows, cols, sms)
		switch {
		case chunk < 1 || n < 1 || n > maxGridY:
			t.Fatalf("dictChunks(%d, %d, %d) = %d, %d: out of range", rows, cols, sms, chunk, n)
		case cols > 0 && (chunk*n < cols || (n-1)*chunk >= cols):
			t.Fatalf("dictChunks(%d, %d, %d) = %d, %d: chunks do not tile %d columns exactly", rows, cols, sms, chunk, n, cols)
		}
	}
	for _, c := range [][3]int{{0, 0, 1}, {1, 0, 132}, {1, 1, 132}, {1, 200000, 132}, {228, 200000, 132},
		{8192, 8192, 132}, {1, 1 << 31, 132}, {3, 1<<31 - 1, 1000}} {
		check(c[0], c[1], c[2])
	}
	for range 10000 {
		check(1+rng.IntN(5000), rng.IntN(1<<24), 1+rng.IntN(200))
	}
}
