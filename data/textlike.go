package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pursuit-ml/pursuit"
)

// TextLikeConfig describes a generated text-like data set (TextLike): rows
// documents over a vocabulary of Dim words, about NNZPerRow distinct words
// a document.
type TextLikeConfig struct {
	Rows, Dim int
	NNZPerRow float64 // mean distinct words a document (the row's non-zeros)
	Topics    int     // topics the documents are drawn from (default 8); the first half are class +1
	Seed      uint64
}

// The shapes of LIBSVM's two text sets, for TextLike.
var (
	// RCV1Shape is rcv1.binary's training set: 20,242 documents × 47,236
	// words, about 76 non-zeros a row (density 0.16%).
	RCV1Shape = TextLikeConfig{Rows: 20242, Dim: 47236, NNZPerRow: 76, Topics: 8}
	// News20Shape is news20.binary: 19,996 documents × 1,355,191 words,
	// about 455 non-zeros a row (9.1 million in all, density 0.034%).
	News20Shape = TextLikeConfig{Rows: 19996, Dim: 1355191, NNZPerRow: 455, Topics: 8}
)

// TextLikeShape returns the preset named "rcv1" or "news20".
func TextLikeShape(name string) (TextLikeConfig, error) {
	switch name {
	case "rcv1":
		return RCV1Shape, nil
	case "news20":
		return News20Shape, nil
	}
	return TextLikeConfig{}, fmt.Errorf("unknown text-like shape %q (want rcv1 or news20)", name)
}

// zipfExponent is the vocabulary's Zipf exponent (word frequency ∝
// 1/rank^s): a little above 1, as in English text.
const zipfExponent = 1.1

// topicShare is the share of a document's word draws taken from its topic's
// own word distribution rather than the shared background.
const topicShare = 0.35

// TextLike generates a text-like sparse data set: a vocabulary of c.Dim
// words with Zipf-distributed frequencies, each document drawn from one of
// c.Topics topics (each topic a Zipf distribution of its own over a
// different ordering of the words, mixed with the shared background),
// about c.NNZPerRow distinct words a document (log-normally spread, σ 0.5),
// rows of tf-idf weights scaled to unit Euclidean norm, and labels ±1 by topic
// (the first half of the topics +1) with 2% of them flipped. The rows are
// compressed sparse rows with increasing columns; memory is O(non-zeros)
// plus the words' document counts (4 bytes a word). The same
// configuration gives the same set.
func TextLike(c TextLikeConfig) (*Dataset, error) {
	if c.Topics == 0 {
		c.Topics = 8
	}
	switch {
	case c.Rows < 1 || c.Dim < 2 || c.Dim > MaxSparseIndex:
		return nil, fmt.Errorf("text-like data: %d rows × %d words: want at least 1 row and 2 to %d words", c.Rows, c.Dim, MaxSparseIndex)
	case !(c.NNZPerRow >= 1) || c.NNZPerRow > float64(c.Dim)/4:
		return nil, fmt.Errorf("text-like data: %v words a row: want 1 to a quarter of the %d words", c.NNZPerRow, c.Dim)
	case c.Topics < 2:
		return nil, fmt.Errorf("text-like data: %d topics: want at least 2", c.Topics)
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x7e47))
	d := uint64(c.Dim)
	zipf := rand.NewZipf(rng, zipfExponent, 1, d-1)
	// Word orderings: rank r → word (a·r + b) mod Dim with a coprime to
	// Dim, a bijection held in two numbers: the background's and each
	// topic's.
	perm := func() [2]uint64 {
		for {
			a := 1 + rng.Uint64N(d-1)
			if gcd(a, d) == 1 {
				return [2]uint64{a, rng.Uint64N(d)}
			}
		}
	}
	back := perm()
	topics := make([][2]uint64, c.Topics)
	for t := range topics {
		topics[t] = perm()
	}
	word := func(p [2]uint64, r uint64) int32 {
		return int32((p[0]*r + p[1]) % d) // a, r < Dim ≤ 2³¹: no overflow
	}
	const sigma = 0.5
	est := int64(float64(c.Rows)*c.NNZPerRow*1.02) + 16
	off := make([]int64, 1, c.Rows+1)
	idx := make([]int32, 0, est)
	val := make([]float32, 0, est)
	y := make([]float64, c.Rows)
	var draws []int32
	for i := range c.Rows {
		t := rng.IntN(c.Topics)
		y[i] = 1
		if t >= c.Topics/2 {
			y[i] = -1
		}
		if rng.Float64() < 0.02 {
			y[i] = -y[i]
		}
		want := int(math.Round(c.NNZPerRow * math.Exp(sigma*rng.NormFloat64()-sigma*sigma/2)))
		want = min(max(want, 1), c.Dim/2)
		// Draw words until the document has want distinct ones (at most 30
		// draws a word: the Zipf head repeats). Each check adds exactly the
		// missing number of draws, so the document ends with at most want.
		draws = draws[:0]
		for next, distinct := want, 0; distinct < want && len(draws) < 30*want; {
			for len(draws) < next {
				p := back
				if rng.Float64() < topicShare {
					p = topics[t]
				}
				draws = append(draws, word(p, zipf.Uint64()))
			}
			slices.Sort(draws)
			distinct = 1
			for k := 1; k < len(draws); k++ {
				if draws[k] != draws[k-1] {
					distinct++
				}
			}
			next = len(draws) + want - distinct
		}
		// The words and their counts (term frequencies), in column order.
		for k := 0; k < len(draws); {
			e := k + 1
			for e < len(draws) && draws[e] == draws[k] {
				e++
			}
			idx = append(idx, draws[k])
			val = append(val, float32(e-k))
			k = e
		}
		off = append(off, int64(len(idx)))
	}
	// Document frequencies, then tf-idf weights (1 + ln tf)·(1 + ln(N/df)),
	// as rcv1's, and rows to unit norm.
	df := make([]int32, c.Dim)
	for _, w := range idx {
		df[w]++
	}
	n := float64(c.Rows)
	for i := range c.Rows {
		row := val[off[i]:off[i+1]]
		ss := 0.0
		for k, w := range idx[off[i]:off[i+1]] {
			v := (1 + math.Log(float64(row[k]))) * (math.Log(n/float64(df[w])) + 1)
			row[k] = float32(v)
			ss += v * v
		}
		nrm := math.Sqrt(ss)
		for k := range row {
			row[k] = float32(float64(row[k]) / nrm)
		}
	}
	x := pursuit.Matrix{Rows: c.Rows, Cols: c.Dim, Sparse: &pursuit.CSR{Offsets: off, Indices: idx, Values: val}}
	name := fmt.Sprintf("text-like %d×%d", c.Rows, c.Dim)
	return &Dataset{X: x, Y: y, Name: name}, nil
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// WriteTextLike generates the text-like set of c (TextLike) and writes it
// to path in LIBSVM format (gzip-compressed when path ends in ".gz"),
// creating or truncating the file.
func WriteTextLike(path string, c TextLikeConfig) (*Dataset, error) {
	ds, err := TextLike(c)
	if err != nil {
		return nil, err
	}
	return ds, WriteFile(path, ds)
}
