package learn

import (
	"fmt"
	"io"
	"strings"

	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/internal/safefile"
	"github.com/pursuit-ml/pursuit/onnxexport"
)

// ExportLIBSVM writes m as a LIBSVM model (File.LIBSVM) to path and, when
// m scales its data, the svm-scale range file (data.Scaler.WriteRange) to
// path+".range", each replaced whole or not at all. It returns the files
// written.
func (m *File) ExportLIBSVM(path string) ([]string, error) {
	lm, err := m.LIBSVM()
	if err != nil {
		return nil, fmt.Errorf("a %s model cannot be written as a LIBSVM model: %w", m.Header.Algorithm, err)
	}
	if err := safefile.WriteFile(path, 0o666, lm.WriteLIBSVM); err != nil {
		return nil, err
	}
	files := []string{path}
	if s := m.Header.Scaler; s != nil && s.Mode != data.ScaleNone {
		rp := path + ".range"
		if err := safefile.WriteFile(rp, 0o666, s.WriteRange); err != nil {
			return nil, err
		}
		files = append(files, rp)
	}
	return files, nil
}

// ExportONNX writes m as an ONNX model to path: its LIBSVM model behind
// its scaler, through package onnxexport, naming producerVersion: the
// float64 graph, or with svmOperators ai.onnx.ml's Scaler and SVM
// operators (float32). A one-vs-rest model is refused (the export votes
// over the pairs of a one-vs-one model).
func (m *File) ExportONNX(path, producerVersion string, svmOperators bool) error {
	if m.Header.Labels.Task == TaskOneVsRest {
		return fmt.Errorf("a one-vs-rest %s model (%d binary machines) cannot be written as an ONNX model: the export votes over the pairs of a one-vs-one model, as ai.onnx.ml's SVMClassifier does, and a one-vs-rest model predicts the class whose machine's decision is largest", m.Header.Algorithm, len(m.Models))
	}
	var opts []onnxexport.Option
	if svmOperators {
		opts = append(opts, onnxexport.SVMOperators())
	}
	lm, err := m.LIBSVM()
	if err == nil {
		_, err = onnxexport.Marshal(lm, m.Header.Scaler, opts...) // refuse before a file is written
	}
	if err != nil {
		return fmt.Errorf("a %s model cannot be written as an ONNX model: %w", m.Header.Algorithm, err)
	}
	doc := fmt.Sprintf("pursuit %s model (%s)", m.Header.Algorithm, lm.Kernel)
	return safefile.WriteFile(path, 0o666, func(w io.Writer) error {
		return onnxexport.Write(w, lm, m.Header.Scaler, append(opts, onnxexport.WithDoc(doc), onnxexport.WithProducerVersion(producerVersion))...)
	})
}

// ExportFormats are the formats Export writes: a LIBSVM model, an ONNX
// model as the float64 graph of standard operators (the decisions of
// pursuit predict to about 1e-12), and an ONNX model of ai.onnx.ml's
// Scaler and SVMClassifier/SVMRegressor (which compute in float32).
var ExportFormats = []string{"libsvm", "onnx", "onnx-svm"}

// ExportFiles are the files Export writes for format to path: path and,
// for libsvm, path+".range" (when the model scales its data).
func ExportFiles(format, path string) []string {
	if format == "libsvm" {
		return []string{path, path + ".range"}
	}
	return []string{path}
}

// Export writes m to path in format, one of ExportFormats (ExportLIBSVM
// or ExportONNX, naming producerVersion), and returns the files written.
// An unknown format is a SettingError about "format" naming m's kind.
func (m *File) Export(format, path, producerVersion string) ([]string, error) {
	switch format {
	case "libsvm":
		return m.ExportLIBSVM(path)
	case "onnx", "onnx-svm":
		if err := m.ExportONNX(path, producerVersion, format == "onnx-svm"); err != nil {
			return nil, err
		}
		return []string{path}, nil
	}
	return nil, settingErr("format", "{format} %q: pursuit export writes a %s model as %s", format, m.Header.Algorithm, strings.Join(ExportFormats, " or "))
}
