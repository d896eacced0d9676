package learn

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/svm"
)

// SourceError is LoadCompressSource's refusal of a model file: it cannot
// be opened (Open: Err is the file system's error), it cannot be read
// (Err), or it is not a C-SVC classifier (Why says what it is). It
// matches pursuit.ErrBadInput unless it is the file system's error.
type SourceError struct {
	Path string
	Open bool
	Err  error
	Why  string // e.g. "a regression model; only classifiers (C-SVC) can be compressed"
}

// Error formats the error as "PATH is WHY", "PATH: ERR" or, for Open, ERR
// (which names the path).
func (e *SourceError) Error() string {
	switch {
	case e.Why != "":
		return e.Path + " is " + e.Why
	case e.Open:
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *SourceError) Unwrap() error { return e.Err }

// Is matches pursuit.ErrBadInput for a file that was opened.
func (e *SourceError) Is(target error) bool { return target == pursuit.ErrBadInput && !e.Open }

// LoadCompressSource reads the C-SVC model at path to compress: a LIBSVM
// text model of any number of classes (LIBSVMSource, read within what e's
// budget leaves) or a pursuit model file of svm C-SVC machines
// (FileSource). A file that is neither is refused with a *SourceError; the
// errors of LoadModel are returned as they are.
func LoadCompressSource(e *engine.Engine, path string) (*CompressSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &SourceError{Path: path, Open: true, Err: err}
	}
	head := make([]byte, 8)
	n, _ := f.Read(head)
	f.Close()
	if !bytes.HasPrefix(head[:n], []byte("svm_type")) {
		m, err := LoadModel(e, path)
		if err != nil {
			return nil, err
		}
		if m.Header.Labels.Task == TaskRegression {
			return nil, &SourceError{Path: path, Why: "a regression model; only classifiers (C-SVC) can be compressed"}
		}
		for _, f := range m.Models {
			if sf, ok := f.(*SVMModel); !ok || sf.SVM.Type != svm.CSVC {
				return nil, &SourceError{Path: path, Why: "a " + m.Header.Algorithm + " model; compress takes C-SVC models (`pursuit train --algo svm`, or svm-train's)"}
			}
		}
		return FileSource(m)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, &SourceError{Path: path, Open: true, Err: err}
	}
	first, _, _ := bytes.Cut(raw, []byte("\n"))
	if f := strings.Fields(string(first)); len(f) == 2 && f[1] != "c_svc" {
		kind := map[string]string{"epsilon_svr": "an epsilon-SVR regression", "nu_svr": "a nu-SVR regression",
			"one_class": "a one-class", "nu_svc": "a nu-SVC"}[f[1]]
		if kind == "" {
			kind = "an " + strconv.Quote(f[1])
		}
		return nil, &SourceError{Path: path, Why: kind + " LIBSVM model; only C-SVC classifiers (svm-train -s 0, binary or multi-class) can be compressed"}
	}
	limit := max(e.Available()-2*int64(len(raw)), 0)
	sm, err := svm.ReadLIBSVMModel(bytes.NewReader(raw), svm.WithModelMemoryLimit(limit))
	if err != nil {
		return nil, &SourceError{Path: path, Err: err}
	}
	return LIBSVMSource(sm), nil
}
