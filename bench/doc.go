// Package bench holds the long reproductions of the papers' tables and the
// scaling benchmarks, kept out of the default fast `go test ./...` run. Each
// file's header says what it reproduces, prints the paper's numbers beside
// ours, and how to run it; they run only when asked through an environment
// variable or -bench:
//
//	PURSUIT_KMP_REPRO=1 go test ./bench -run TestKMPUSPS -v -timeout 1h   # KMP Table 1 (USPS)
//	PURSUIT_KMP_REPRO=1 go test ./bench -run TestKMPUCI -v -timeout 1h    # KMP Table 3 (UCI)
//	go test ./bench -run '^$' -bench BenchmarkKMPPreFitStep -benchtime 20x # pre-fitting step vs bandwidth
//	PURSUIT_SKMP=1 go test ./bench -run 'TestSKMP' -v -timeout 1h         # stochastic KMP at scale, USPS table
//	PURSUIT_SLMC_USPS=1 go test ./bench -run 'TestSLMCUSPS' -v -timeout 3h # SLMC Table 1 (USPS), Example 2
//	go test ./bench -run '^$' -bench BenchmarkSKPCAUSPS -benchtime 3x      # sparse KPCA, USPS k = 300, step vs bandwidth
//	PURSUIT_MPKFDA=1 go test ./bench -run TestMPKFDAUSPS -v -timeout 30m   # MP-KFDA, USPS 8 vs rest against the SVM
//	PURSUIT_HUSSAIN=1 go test ./bench -run TestHussainFigure -v            # Hussain et al. Figures 2–5 (bounds vs k)
//	PURSUIT_SKCCA=1 go test ./bench -run TestSKCCAUSPS -v -timeout 30m     # Figure 6: sparse vs full KCCA, USPS halves
//	PURSUIT_SVM_SPARSE=1 go test ./bench -run TestSVMSparseVsLIBSVM -v -timeout 1h # sparse SVM vs svm-train (rcv1-like, mushrooms)
//	PURSUIT_SVM_STORAGE=1 go test ./bench -run TestSVMStorageSingleRows -v   # the SVM's time in sparse and dense storage
//
// The SVM's comparison with LIBSVM's svm-train lives in package svm
// (`go test ./svm -run '^$' -bench USPS -benchtime 1x`), the backends'
// throughput benchmarks in packages backend and asm. The data sets are read
// from ../shared/datasets (or $PURSUIT_DATASETS); runs that need them skip
// with a message when they are absent.
package bench
