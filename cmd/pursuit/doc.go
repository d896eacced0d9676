// Command pursuit trains, evaluates and draws sparse kernel machines —
// kernel matching pursuit (basic, back-fitting, pre-fitting, tanh output,
// stochastic), support vector machines and sparse large margin classifiers —
// on the pure-Go, AVX2 or CUDA backend that package engine chooses.
//
// Usage:
//
//	pursuit demo                                   # generated data, every algorithm, table and plots
//	pursuit info [--json]                          # CPU, backends and the one chosen, and why
//	pursuit train --data F [--test F] [--algo A] [--kernel K --gamma G | --sigma S] [--basis N | --val-frac F]
//	              [--positive LABEL | --one-vs-rest | --regression] [--model OUT] [--json] ...
//	pursuit predict --model M --data F [--out P] [--json] [--quiet]
//	pursuit cv --data F [--folds K] [--grid-gamma ...] [--grid-c ...] [--grid-basis ...] [--json]
//	pursuit plot --model M [--data F] [--test F] [--out DIR]
//	pursuit equiv --data F [--epsilon E] [--c C] [--json]   # bpdn vs SMO ε-SVR certificate; exit 0 agree, 1 not
//	pursuit train ... --bound [--delta D] [--alpha A]      # adds Hussain et al.'s bound for the trained model
//	pursuit bound --model M --data TRAIN [--delta D]       # the same bound for a saved model
//	pursuit subspace --data F [--test F] [--k K] [--plot DIR [--log]]  # sparse KPCA: residuals and bounds against k
//	pursuit compress --model SVM --data TRAIN [--test F] (--nz N | --nz-frac F[,F...]) [--method slmc|mrs|rs] --out OUT
//	                                               # shrink a C-SVC (pursuit's or svm-train's) to a few vectors per machine
//
// Every command has --help with its flags and examples. Data files are in
// LIBSVM/svmlight format (or CSV with --format csv), optionally .gz or .bz2.
// Features are scaled as --scale says (default minmax, to [-1, 1]), fitted
// on the training data and stored in the model, so predict applies the same
// scaling. Multi-class data need --positive LABEL (LABEL against the rest,
// predictions ±1) or --one-vs-rest (one output per class, the largest wins).
//
// With --json, train, predict and cv print one JSON object with at least
// algorithm, backend, n_train, n_test, n_basis, train_error, test_error,
// train_seconds, predict_seconds and model_bytes: error rates are fractions
// in [0, 1] (mean squared errors for regression), times are seconds, and
// figures that do not apply are null.
//
// Errors are one line on stderr and exit status 2: a missing or malformed
// file (with the file name and line), an unknown algorithm or kernel, a
// model and data with different feature counts, a corrupted model file.
// Progress goes to stderr (--progress): a self-overwriting bar on a
// terminal, and plain lines otherwise (one each 10% of the job or every
// 5 s, for batch logs); --progress off or --quiet silences it. Ctrl-C ends
// the bar's line, prints "interrupted" and exits with status 130.
//
// --algo slmc --method rs|mrs|rsvm|mrsvm|skfd trains the SLMC paper's
// comparison methods instead of SLMC itself, with --nz or --nz-frac as for
// SLMC; the JSON output names the method ("method") and, for slmc and skfd,
// why the minimisation stopped ("stop"; see package slmc for what to do
// about each reason).
//
// # Model files
//
// One format wraps every algorithm's own model: the project's model frame
// (internal/modelfile: the magic "PURSUIT-MODEL\n", format version 3, the
// length, and a SHA-256 of the whole, so truncation and corruption are
// detected) around
//
//	<header: one line of JSON>\n
//	<payload 1><payload 2>...
//
// The header names the algorithm, the task (binary, one-vs-rest or
// regression) and class labels, the feature count, the feature scaling, the
// kernel, the training figures and learning curve, and the length of each
// payload. Version 1 files (a text first line "PURSUIT-MODEL 1 <header
// length> <header CRC-32>" and a CRC-32 per payload) and version 2 files
// are still read. Version 3 differs from 2 only in its svm payloads, whose
// first support vector names the last feature even when it is zero, so
// that the header's feature count is checked against every payload.
//
// A model file is untrusted input: every size it declares (the feature
// count, the basis count, the payload lengths, the payloads' shapes,
// LIBSVM's nr_class, labels, total_sv and feature indices) is checked
// against what the file holds, and what it would cost against --mem-budget,
// before memory is allocated for it; such a file is refused with one line
// naming the file, the field and the value. predict, plot and bound take
// --mem-budget as train does (default 4 GiB): the model file, its vectors
// and the data must fit in it. The payloads
// are the algorithms' own formats: kmp's versioned, checksummed file (one
// payload holds every one-vs-rest output), LIBSVM's text model for svm (one
// payload per class for one-vs-rest, trained by svm.TrainOneVsRest; with
// --scale none, cut out of the file by its length in the header, it is
// usable as is by LIBSVM's svm-predict), LIBSVM's epsilon_svr text model for
// bpdn (the same adapter as svm), slmc's versioned, checksummed file for slmc
// and greedy's for mpkfda (one payload per class for one-vs-rest).
//
// pursuit predict also reads svm-train's models (C-SVC with any number of
// classes, ε-SVR; kernels 0 to 3) and gives svm-predict's predictions. It
// computes in float64 by default, the same bits on every backend;
// --precision float32 takes the backend's float32 kernel blocks instead.
//
// --basis N asks the KMP family for N kernel basis functions; the bias is
// not one of them. A flag that applies to some algorithms only (train
// --help lists them) is refused with the others.
//
// # Across ranks (MPI)
//
// Built with -tags mpi and started by mpirun or srun, train and cv run on
// every rank (ranks.go says how). train: each rank loads only its block of
// the rows of --data and --test (data.WithShard), the label plan, the
// scaling and the error rates are computed over every rank's rows, and the
// training function gets the rank's rows on an engine that holds the
// communicator; an algorithm whose training function does not split its
// rows (comm.ErrNotDistributed) stops every rank with one line. cv: every
// rank loads all the data and trains its share of the (grid setting, fold)
// trainings in one process; the figures are gathered, so rank 0 prints the
// single-process table. Before anything else the ranks compare their
// command lines and data files (comm.CheckConfig). Rank 0 alone writes and
// prints; the other commands refuse to run on several ranks.
package main
