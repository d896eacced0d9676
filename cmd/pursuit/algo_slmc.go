package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// slmcDefaultNzFrac is the expansion size when neither --nz nor --nz-frac
// is given: 10% of the SVM's support vectors, as in the paper's USPS table.
const slmcDefaultNzFrac = 0.1

// slmcFitted adapts an slmc.Model. Package slmc has no file format of its
// own yet, so the payload is the CLI's: the line "pursuit-slmc 1" then one
// JSON object with the method, kernel, expansion vectors (float32, exact),
// coefficients and bias.
type slmcFitted struct{ m *slmc.Model }

type slmcPayload struct {
	Method string         `json:"method"`
	Kernel backend.Kernel `json:"kernel"`
	Rows   int            `json:"rows"`
	Cols   int            `json:"cols"`
	XV     []float32      `json:"xv"`
	Beta   []float64      `json:"beta"`
	Bias   float64        `json:"bias"`
}

const slmcMagic = "pursuit-slmc 1"

func trainSLMC(e *engine.Engine, p *trainParams, x engine.Matrix, y []float64, _ engine.Matrix, _ []float64) (fitted, error) {
	nz := p.nz
	if nz == 0 {
		frac := p.nzFrac
		if frac == 0 {
			frac = slmcDefaultNzFrac
		}
		sp := svmParams(p)
		sp.Type = svm.CSVC
		ref, err := svm.Train(e, x, y, sp)
		if err != nil {
			return nil, fmt.Errorf("the SVM that sizes --nz-frac: %w", err)
		}
		exp, err := slmc.FromSVM(ref, 1)
		if err != nil {
			return nil, fmt.Errorf("the SVM that sizes --nz-frac: %w", err)
		}
		nz = exp.NumXVFraction(frac) // round(frac·#SV), at least 1, as the paper

	}
	if nz > x.Rows {
		return nil, fmt.Errorf("--nz %d is more than the %d training examples", nz, x.Rows)
	}
	cfg := slmc.Config{Kernel: p.kernel, C: p.c, NumXV: nz, Init: slmc.InitKMeans, Seed: uint64(p.seed)}
	if p.progress != nil {
		total := 200 // slmc's default iteration bound
		cfg.Optim.Progress = func(s slmc.Progress) {
			p.progress(progressUpdate{Step: s.Iter, Total: total, Metric: "W", Value: s.W, ValErr: math.NaN()})
		}
	}
	res, err := slmc.Train(e, x, y, cfg)
	if err != nil {
		return nil, err
	}
	return &slmcFitted{m: res.Model}, nil
}

func loadSLMC(r io.Reader) (fitted, error) {
	br := bufio.NewReader(r)
	line, err := br.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != slmcMagic {
		return nil, fmt.Errorf("not an slmc model payload (want %q first)", slmcMagic)
	}
	var pl slmcPayload
	dec := json.NewDecoder(br)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pl); err != nil {
		return nil, fmt.Errorf("slmc model: %w", err)
	}
	if pl.Rows < 0 || pl.Cols < 0 || len(pl.XV) != pl.Rows*pl.Cols {
		return nil, fmt.Errorf("slmc model: %d expansion values for %d×%d vectors", len(pl.XV), pl.Rows, pl.Cols)
	}
	xv, err := backend.MatrixFrom(pl.Rows, pl.Cols, pl.XV)
	if err != nil {
		return nil, fmt.Errorf("slmc model: %w", err)
	}
	m := &slmc.Model{Method: pl.Method, Kernel: pl.Kernel, XV: xv, Beta: pl.Beta, Bias: pl.Bias}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("slmc model: %w", err)
	}
	return &slmcFitted{m: m}, nil
}

func (f *slmcFitted) Decision(e *engine.Engine, x engine.Matrix) ([]float64, error) {
	return f.m.Decision(e, x)
}
func (f *slmcFitted) NBasis() int          { return f.m.NumXV() }
func (f *slmcFitted) Basis() engine.Matrix { return f.m.XV }

func (f *slmcFitted) Save(w io.Writer) error {
	xv := f.m.XV
	pl := slmcPayload{Method: f.m.Method, Kernel: f.m.Kernel, Rows: xv.Rows, Cols: xv.Cols, Beta: f.m.Beta, Bias: f.m.Bias}
	pl.XV = make([]float32, 0, xv.Rows*xv.Cols)
	for i := range xv.Rows {
		pl.XV = append(pl.XV, xv.Row(i)...)
	}
	if _, err := io.WriteString(w, slmcMagic+"\n"); err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(&pl)
}
