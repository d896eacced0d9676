package svm

import (
	"math"
	"math/rand/v2"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// binaryProbability fits Platt's sigmoid P(y=+1|f) = 1/(1+exp(A f + B)) to
// 5-fold cross-validated decision values of the ±1 problem (x, y), as
// LIBSVM's -b 1 does.
func binaryProbability(e *engine.Engine, x pursuit.Matrix, y []float64, cPos, cNeg float64, p Params) (float64, float64, error) {
	const folds = 5
	l := len(y)
	rng := rand.New(rand.NewPCG(p.Seed, 0x5eed))
	perm := rng.Perm(l)
	dec := make([]float64, l)
	q := p
	q.Probability = false
	for f := range folds {
		begin, end := f*l/folds, (f+1)*l/folds
		var trainIdx []int
		trainIdx = append(trainIdx, perm[:begin]...)
		trainIdx = append(trainIdx, perm[end:]...)
		test := perm[begin:end]
		if len(test) == 0 {
			continue
		}
		ty := make([]float64, len(trainIdx))
		np, nn := 0, 0
		for t, i := range trainIdx {
			ty[t] = y[i]
			if y[i] > 0 {
				np++
			} else {
				nn++
			}
		}
		if np == 0 || nn == 0 {
			v := 1.0
			if np == 0 {
				v = -1
			}
			if np == 0 && nn == 0 {
				v = 0
			}
			for _, i := range test {
				dec[i] = v
			}
			continue
		}
		if p.InstanceWeights != nil {
			q.InstanceWeights = pickFloats(p.InstanceWeights, trainIdx)
		}
		fit, err := trainBinary(e, gatherRows(x, trainIdx), ty, cPos, cNeg, q)
		if err != nil {
			return 0, 0, err
		}
		var svIdx []int
		var coef []float64
		for t, a := range fit.alpha {
			if a != 0 {
				svIdx = append(svIdx, trainIdx[t])
				coef = append(coef, a)
			}
		}
		m := &Model{Type: CSVC, Kernel: p.Kernel, Labels: []float64{1, -1}, NumSV: []int{len(svIdx), 0},
			SV: gatherRows(x, svIdx), Coef: [][]float64{coef}, Rho: []float64{fit.rho}}
		d, err := m.Decision(e, gatherRows(x, test))
		if err != nil {
			return 0, 0, err
		}
		for t, i := range test {
			dec[i] = d[t]
		}
	}
	a, b := sigmoidTrain(dec, y)
	return a, b, nil
}

// sigmoidTrain fits (A, B) by Newton's method with backtracking on the
// regularised cross-entropy of Platt (1999) as improved by Lin, Lin & Weng
// (2007).
func sigmoidTrain(dec, y []float64) (float64, float64) {
	var prior1, prior0 float64
	for _, v := range y {
		if v > 0 {
			prior1++
		} else {
			prior0++
		}
	}
	const (
		maxIter = 100
		minStep = 1e-10
		sigma   = 1e-12
		eps     = 1e-5
	)
	hi := (prior1 + 1) / (prior1 + 2)
	lo := 1 / (prior0 + 2)
	t := make([]float64, len(y))
	for i, v := range y {
		if v > 0 {
			t[i] = hi
		} else {
			t[i] = lo
		}
	}
	loss := func(a, b float64) float64 {
		var f float64
		for i, d := range dec {
			z := d*a + b
			if z >= 0 {
				f += t[i]*z + math.Log1p(math.Exp(-z))
			} else {
				f += (t[i]-1)*z + math.Log1p(math.Exp(z))
			}
		}
		return f
	}
	a, b := 0.0, math.Log((prior0+1)/(prior1+1))
	fval := loss(a, b)
	for range maxIter {
		h11, h22, h21, g1, g2 := sigma, sigma, 0.0, 0.0, 0.0
		for i, d := range dec {
			z := d*a + b
			var pp, qq float64
			if z >= 0 {
				ez := math.Exp(-z)
				pp, qq = ez/(1+ez), 1/(1+ez)
			} else {
				ez := math.Exp(z)
				pp, qq = 1/(1+ez), ez/(1+ez)
			}
			d2 := pp * qq
			h11 += d * d * d2
			h22 += d2
			h21 += d * d2
			d1 := t[i] - pp
			g1 += d * d1
			g2 += d1
		}
		if math.Abs(g1) < eps && math.Abs(g2) < eps {
			break
		}
		det := h11*h22 - h21*h21
		da := -(h22*g1 - h21*g2) / det
		db := -(-h21*g1 + h11*g2) / det
		gd := g1*da + g2*db
		step := 1.0
		for step >= minStep {
			na, nb := a+step*da, b+step*db
			if nf := loss(na, nb); nf < fval+1e-4*step*gd {
				a, b, fval = na, nb, nf
				break
			}
			step /= 2
		}
		if step < minStep {
			break
		}
	}
	return a, b
}

// sigmoidPredict returns 1/(1+exp(A f + B)) without overflow.
func sigmoidPredict(f, a, b float64) float64 {
	z := f*a + b
	if z >= 0 {
		ez := math.Exp(-z)
		return ez / (1 + ez)
	}
	return 1 / (1 + math.Exp(z))
}

// multiclassProbability couples the pairwise probabilities r[i][j] ≈
// P(i | i or j) into class probabilities p (Wu, Lin & Weng 2004, method 2),
// by the fixed-point iteration LIBSVM uses.
func multiclassProbability(r [][]float64, p []float64) {
	k := len(p)
	q := make([][]float64, k)
	for t := range q {
		q[t] = make([]float64, k)
	}
	qp := make([]float64, k)
	for t := range k {
		p[t] = 1 / float64(k)
		for j := range k {
			if j == t {
				continue
			}
			q[t][t] += r[j][t] * r[j][t]
			q[t][j] = -r[j][t] * r[t][j]
		}
	}
	maxIter := max(100, k)
	eps := 0.005 / float64(k)
	for range maxIter {
		var pqp float64
		for t := range k {
			qp[t] = 0
			for j := range k {
				qp[t] += q[t][j] * p[j]
			}
			pqp += p[t] * qp[t]
		}
		var maxErr float64
		for t := range k {
			maxErr = math.Max(maxErr, math.Abs(qp[t]-pqp))
		}
		if maxErr < eps {
			break
		}
		for t := range k {
			diff := (-qp[t] + pqp) / q[t][t]
			p[t] += diff
			pqp = (pqp + diff*(diff*q[t][t]+2*qp[t])) / (1 + diff) / (1 + diff)
			for j := range k {
				qp[j] = (qp[j] + diff*q[t][j]) / (1 + diff)
				p[j] /= 1 + diff
			}
		}
	}
}
