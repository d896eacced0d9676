package pursuit

// Values64 sets dst[j] = k(a_i, b_j), row i of a against every row j of b
// (each dense or sparse; absent features are zero), in float64: the
// prediction path that gives the same bits on every backend and for
// either storage.
//
// The sums are taken in four lanes by feature index (feature f adds to
// lane f mod 4, in increasing f within a lane) and combined as
// (l0 + l1) + (l2 + l3). A feature absent from both rows adds nothing, and
// one absent from one row adds the same ±0 or square a dense zero would, so
// dense and sparse storage of the same rows give the same bits; four lanes
// let a dense row's terms be summed without one long chain of dependent
// additions (about four times Eval's speed). RBF distances are Σ(a_f −
// b_f)², never ‖a‖² + ‖b‖² − 2a·b, so that they do not cancel; the other
// kernels take the products Σ a_f·b_f. The result differs from Eval's
// in-order sums by a few float64 roundings.
func (k Kernel) Values64(dst []float64, a Matrix, i int, b Matrix) {
	for j := range dst[:b.Rows] {
		dst[j] = k.ValueRows64(a, i, b, j)
	}
}

// ValueRows64 is one value of Values64: k(a_i, b_j).
func (k Kernel) ValueRows64(a Matrix, i int, b Matrix, j int) float64 {
	rbf := k.Kind == RBF
	var s float64
	switch {
	case !a.IsSparse() && !b.IsSparse() && rbf:
		s = sqDistOf(a.Row(i), b.Row(j))
	case !a.IsSparse() && !b.IsSparse():
		s = dotOf(a.Row(i), b.Row(j))
	default:
		ai, av := rowEntries(a, i)
		bi, bv := rowEntries(b, j)
		s = mergeLanes(ai, av, bi, bv, rbf)
	}
	if rbf {
		return k.FromDot(0, s)
	}
	return k.FromDot(s, 0)
}

// Value64 is k(x, z) on two dense rows already converted to float64 (the
// float32 values exactly): Values64's bits for the same rows, without
// converting each value on every use (about three times faster when a row
// meets many others).
func (k Kernel) Value64(x, z []float64) float64 {
	if k.Kind == RBF {
		return k.FromDot(0, sqDistOf(x, z))
	}
	return k.FromDot(dotOf(x, z), 0)
}

// Float64Row converts src into dst (len(src) values, grown as needed) and
// returns it: the row Value64 takes.
func Float64Row(dst []float64, src []float32) []float64 {
	if cap(dst) < len(src) {
		dst = make([]float64, len(src))
	}
	dst = dst[:len(src)]
	for j, v := range src {
		dst[j] = float64(v)
	}
	return dst
}

// real is the element type of rows the lane sums take.
type real interface{ ~float32 | ~float64 }

// SqDist64 returns ‖x − z‖² accumulated in float64 in Values64's four
// lanes, each value converted exactly as it is used (a feature one row
// lacks counts as zero): the distance of the float64 paths (Values64, and
// the engine's float64 RBF blocks).
func SqDist64(x, z []float32) float64 { return sqDistOf(x, z) }

// sqDistOf is Σ(x_f − z_f)² in four lanes (feature f in lane f mod 4, in
// increasing f within a lane) combined as (l0 + l1) + (l2 + l3), each value
// converted to float64 exactly as it is used; a feature one row lacks
// counts as zero.
func sqDistOf[T real](x, z []T) float64 {
	n := min(len(x), len(z))
	xs, zs := x[:n], z[:n]
	var s0, s1, s2, s3 float64
	for len(xs) >= 4 && len(zs) >= 4 {
		d0 := float64(xs[0]) - float64(zs[0])
		d1 := float64(xs[1]) - float64(zs[1])
		d2 := float64(xs[2]) - float64(zs[2])
		d3 := float64(xs[3]) - float64(zs[3])
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
		xs, zs = xs[4:], zs[4:]
	}
	// The last features one at a time, a feature one row lacks as zero.
	for f := n &^ 3; f < max(len(x), len(z)); f++ {
		var d float64
		switch {
		case f < n:
			d = float64(x[f]) - float64(z[f])
		case f < len(x):
			d = float64(x[f])
		default:
			d = -float64(z[f])
		}
		addLane(&s0, &s1, &s2, &s3, f, d*d)
	}
	return (s0 + s1) + (s2 + s3)
}

// dotOf is Σ x_f·z_f in sqDistOf's lanes (the features both rows have).
func dotOf[T real](x, z []T) float64 {
	n := min(len(x), len(z))
	xs, zs := x[:n], z[:n]
	var s0, s1, s2, s3 float64
	for len(xs) >= 4 && len(zs) >= 4 {
		s0 += float64(xs[0]) * float64(zs[0])
		s1 += float64(xs[1]) * float64(zs[1])
		s2 += float64(xs[2]) * float64(zs[2])
		s3 += float64(xs[3]) * float64(zs[3])
		xs, zs = xs[4:], zs[4:]
	}
	for f := n &^ 3; f < n; f++ {
		addLane(&s0, &s1, &s2, &s3, f, float64(x[f])*float64(z[f]))
	}
	return (s0 + s1) + (s2 + s3)
}

// addLane adds v to lane f mod 4.
func addLane(s0, s1, s2, s3 *float64, f int, v float64) {
	switch f & 3 {
	case 0:
		*s0 += v
	case 1:
		*s1 += v
	case 2:
		*s2 += v
	default:
		*s3 += v
	}
}

// SqDistF64 is SqDist64 on rows already in float64 (the same lanes and
// bits).
func SqDistF64(x, z []float64) float64 { return sqDistOf(x, z) }

// DotF64 is Σ x_f·z_f on float64 rows in SqDist64's lanes.
func DotF64(x, z []float64) float64 { return dotOf(x, z) }

// SqDistSparseF64 is SqDistF64 on two sparse float64 rows (increasing
// feature indices ai, bi with their values): the same bits as SqDistF64 on
// the rows written out dense.
func SqDistSparseF64(ai []int32, av []float64, bi []int32, bv []float64) float64 {
	return mergeLanes(ai, av, bi, bv, true)
}

// DotSparseF64 is DotF64 on two sparse float64 rows.
func DotSparseF64(ai []int32, av []float64, bi []int32, bv []float64) float64 {
	return mergeLanes(ai, av, bi, bv, false)
}

// mergeLanes is sqDistOf (dist) or dotOf on two rows given as
// rowEntries, merging their features.
func mergeLanes[T real](ai []int32, av []T, bi []int32, bv []T, dist bool) float64 {
	var s [4]float64
	p, q := 0, 0
	for p < len(av) || q < len(bv) {
		var f int32
		var x, z float64
		switch {
		case q == len(bv) || (p < len(av) && entryIndex(ai, p) < entryIndex(bi, q)):
			f, x = entryIndex(ai, p), float64(av[p])
			p++
		case p == len(av) || entryIndex(bi, q) < entryIndex(ai, p):
			f, z = entryIndex(bi, q), float64(bv[q])
			q++
		default:
			f, x, z = entryIndex(ai, p), float64(av[p]), float64(bv[q])
			p++
			q++
		}
		if dist {
			d := x - z
			s[f&3] += d * d
		} else if x != 0 && z != 0 {
			s[f&3] += x * z
		}
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}
