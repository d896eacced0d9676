package backend

// The pure-Go dictionary products and rank-k updates: streaming passes over a
// large matrix, parallel over row ranges, with small register tiles so that
// every element read from memory feeds several multiply-adds.

// dictRun is the length of the float32 runs DictProducts sums before adding
// them into float64: a float32 sum of at most 32 products has a relative
// error below 32·2⁻²⁴ ≈ 2e-6 of Σ|products|, and folding into float64 every
// 32 elements keeps that bound independent of the dictionary length.
const dictRun = 32

func (g *goBackend) DictProducts(dst []float64, dict Matrix, vecs Matrix) error {
	if err := CheckDictProducts(dst, dict, vecs); err != nil {
		return err
	}
	l, k := dict.Rows, vecs.Rows
	if l == 0 || k == 0 {
		return nil
	}
	workers := g.workersFor(l*max(dict.Cols, 1)*k, minParallelElems)
	c := roundUp(chunkLen(l, workers, 16), 8)
	parallel(ceilDiv(l, c), workers, nil, nil, func(_ struct{}, t int) {
		dictRange(dst, dict, vecs, t*c, min((t+1)*c, l))
	})
	return nil
}

// dictRange computes the products of dictionary rows [lo, hi) in tiles of
// eight rows (then four, then single rows). A tile (a few tens of kilobytes
// at most) is read once from memory and then stays in cache while the
// vectors are taken in groups of up to four.
func dictRange(dst []float64, dict, vecs Matrix, lo, hi int) {
	i := lo
	for ; i+8 <= hi; i += 8 {
		dictTile(dst, dict, vecs, i, 8)
	}
	for ; i+4 <= hi; i += 4 {
		dictTile(dst, dict, vecs, i, 4)
	}
	l := dict.Rows
	for ; i < hi; i++ {
		d0 := dict.Row(i)
		for j := range vecs.Rows {
			dst[j*l+i] = dot1(d0, vecs.Row(j))
		}
	}
}

// dictTile computes the products of rows [i, i+rows) for rows = 4 or 8.
func dictTile(dst []float64, dict, vecs Matrix, i, rows int) {
	l, k := dict.Rows, vecs.Rows
	var s [8]float64
	for j := 0; j < k; {
		switch {
		case k-j == 1 && rows == 8:
			dot8x1(dict.Row(i), dict.Row(i+1), dict.Row(i+2), dict.Row(i+3),
				dict.Row(i+4), dict.Row(i+5), dict.Row(i+6), dict.Row(i+7), vecs.Row(j), &s)
			copy(dst[j*l+i:][:8], s[:])
			j++
		case k-j == 1:
			s0, s1, s2, s3 := dot4x1(dict.Row(i), dict.Row(i+1), dict.Row(i+2), dict.Row(i+3), vecs.Row(j))
			o := dst[j*l+i:][:4]
			o[0], o[1], o[2], o[3] = s0, s1, s2, s3
			j++
		case k-j <= 3:
			for r := i; r < i+rows; r += 4 {
				// Four rows against two vectors is dot2x4 with the roles
				// swapped: s[j*4+r] = <d_r, v_j>.
				dot2x4(vecs.Row(j), vecs.Row(j+1), dict.Row(r), dict.Row(r+1), dict.Row(r+2), dict.Row(r+3), &s)
				copy(dst[j*l+r:][:4], s[:4])
				copy(dst[(j+1)*l+r:][:4], s[4:])
			}
			j += 2
		default:
			v0, v1, v2, v3 := vecs.Row(j), vecs.Row(j+1), vecs.Row(j+2), vecs.Row(j+3)
			for r := i; r < i+rows; r += 2 {
				dot2x4(dict.Row(r), dict.Row(r+1), v0, v1, v2, v3, &s)
				for q := range 4 {
					dst[(j+q)*l+r] = s[q]
					dst[(j+q)*l+r+1] = s[4+q]
				}
			}
			j += 4
		}
	}
}

// dot8x1 sets s[r] = <d_r, v> for eight rows: float32 sums over runs of
// dictRun elements added into float64.
func dot8x1(d0, d1, d2, d3, d4, d5, d6, d7, v []float32, s *[8]float64) {
	n := len(v)
	d0, d1, d2, d3, d4, d5, d6, d7 = d0[:n], d1[:n], d2[:n], d3[:n], d4[:n], d5[:n], d6[:n], d7[:n]
	*s = [8]float64{}
	for p0 := 0; p0 < n; p0 += dictRun {
		p1 := p0 + dictRun
		if p1 > n {
			p1 = n
		}
		var a0, a1, a2, a3, a4, a5, a6, a7 float32
		for i := p0; i < p1; i++ {
			y := v[i]
			a0 += d0[i] * y
			a1 += d1[i] * y
			a2 += d2[i] * y
			a3 += d3[i] * y
			a4 += d4[i] * y
			a5 += d5[i] * y
			a6 += d6[i] * y
			a7 += d7[i] * y
		}
		s[0] += float64(a0)
		s[1] += float64(a1)
		s[2] += float64(a2)
		s[3] += float64(a3)
		s[4] += float64(a4)
		s[5] += float64(a5)
		s[6] += float64(a6)
		s[7] += float64(a7)
	}
}

// dot4x1 returns the inner products of four rows with v: float32 sums over
// runs of dictRun elements (two interleaved accumulators per row) added into
// float64.
func dot4x1(d0, d1, d2, d3, v []float32) (s0, s1, s2, s3 float64) {
	n := len(v)
	d0, d1, d2, d3 = d0[:n], d1[:n], d2[:n], d3[:n]
	for p0 := 0; p0 < n; p0 += dictRun {
		p1 := p0 + dictRun
		if p1 > n {
			p1 = n
		}
		var a0, a1, a2, a3, b0, b1, b2, b3 float32
		i := p0
		for ; i+1 < p1; i += 2 {
			y0, y1 := v[i], v[i+1]
			a0 += d0[i] * y0
			a1 += d1[i] * y0
			a2 += d2[i] * y0
			a3 += d3[i] * y0
			b0 += d0[i+1] * y1
			b1 += d1[i+1] * y1
			b2 += d2[i+1] * y1
			b3 += d3[i+1] * y1
		}
		if i < p1 {
			y0 := v[i]
			a0 += d0[i] * y0
			a1 += d1[i] * y0
			a2 += d2[i] * y0
			a3 += d3[i] * y0
		}
		s0 += float64(a0) + float64(b0)
		s1 += float64(a1) + float64(b1)
		s2 += float64(a2) + float64(b2)
		s3 += float64(a3) + float64(b3)
	}
	return
}

// dot2x4 sets s[r*4+j] = <d_r, v_j> for two rows and four vectors.
func dot2x4(d0, d1, v0, v1, v2, v3 []float32, s *[8]float64) {
	n := len(d0)
	d1, v0, v1, v2, v3 = d1[:n], v0[:n], v1[:n], v2[:n], v3[:n]
	*s = [8]float64{}
	for p0 := 0; p0 < n; p0 += dictRun {
		p1 := p0 + dictRun
		if p1 > n {
			p1 = n
		}
		var a00, a01, a02, a03, a10, a11, a12, a13 float32
		xs0, xs1 := d0[p0:p1], d1[p0:p1]
		ys0, ys1, ys2, ys3 := v0[p0:p1], v1[p0:p1], v2[p0:p1], v3[p0:p1]
		for i, x0 := range xs0 {
			x1 := xs1[i]
			y := ys0[i]
			a00 += x0 * y
			a10 += x1 * y
			y = ys1[i]
			a01 += x0 * y
			a11 += x1 * y
			y = ys2[i]
			a02 += x0 * y
			a12 += x1 * y
			y = ys3[i]
			a03 += x0 * y
			a13 += x1 * y
		}
		// The float64 sums live in *s, not in registers, which the float32
		// loop above needs all of.
		s[0] += float64(a00)
		s[1] += float64(a01)
		s[2] += float64(a02)
		s[3] += float64(a03)
		s[4] += float64(a10)
		s[5] += float64(a11)
		s[6] += float64(a12)
		s[7] += float64(a13)
	}
}

// dot1 is the single-row inner product, with the same accumulation scheme.
func dot1(d, v []float32) float64 {
	n := len(v)
	d = d[:n]
	var s float64
	for p0 := 0; p0 < n; p0 += dictRun {
		p1 := p0 + dictRun
		if p1 > n {
			p1 = n
		}
		var a, b float32
		i := p0
		for ; i+1 < p1; i += 2 {
			a += d[i] * v[i]
			b += d[i+1] * v[i+1]
		}
		if i < p1 {
			a += d[i] * v[i]
		}
		s += float64(a) + float64(b)
	}
	return s
}

func (g *goBackend) RankUpdate(d Matrix, alpha float32, u Matrix, v Matrix) error {
	if err := CheckRankUpdate(d, u, v); err != nil {
		return err
	}
	if d.Rows == 0 || d.Cols == 0 || u.Rows == 0 {
		return nil
	}
	workers := g.workersFor(d.Rows*d.Cols*u.Rows, minParallelElems)
	c := chunkLen(d.Rows, workers, 8)
	parallel(ceilDiv(d.Rows, c), workers, nil, nil, func(_ struct{}, t int) {
		for i := t * c; i < min((t+1)*c, d.Rows); i++ {
			rankRow(d.Row(i), i, alpha, u, v)
		}
	})
	return nil
}

// rankRow updates row i of d: row += alpha·Σ_t u_t[i]·v_t, taking the
// vectors in groups of up to four so that the row is read and written once
// per group (and stays in cache between groups).
func rankRow(row []float32, i int, alpha float32, u, v Matrix) {
	n := len(row)
	k := u.Rows
	for t := 0; t < k; {
		switch k - t {
		case 1:
			c0 := alpha * u.At(t, i)
			v0 := v.Row(t)[:n]
			for j, x := range v0 {
				row[j] += c0 * x
			}
			t++
		case 2, 3:
			c0, c1 := alpha*u.At(t, i), alpha*u.At(t+1, i)
			v0, v1 := v.Row(t)[:n], v.Row(t + 1)[:n]
			for j, x := range v0 {
				row[j] += c0*x + c1*v1[j]
			}
			t += 2
		default:
			c0, c1, c2, c3 := alpha*u.At(t, i), alpha*u.At(t+1, i), alpha*u.At(t+2, i), alpha*u.At(t+3, i)
			v0, v1, v2, v3 := v.Row(t)[:n], v.Row(t + 1)[:n], v.Row(t + 2)[:n], v.Row(t + 3)[:n]
			for j, x := range v0 {
				row[j] += (c0*x + c1*v1[j]) + (c2*v2[j] + c3*v3[j])
			}
			t += 4
		}
	}
}
