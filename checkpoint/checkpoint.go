package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/internal/modelfile"
	"github.com/pursuit-ml/pursuit/internal/safefile"
)

// Magic starts every checkpoint file; model files start otherwise.
const Magic = "PURSUIT-CHECKPOINT\n"

// Version is the format version this package writes and reads. Version 2
// added SLMC's state, several outputs of KMP and full-search pre-fitting's
// running products.
const Version = 2

// DefaultEvery is the interval between checkpoints when Options.Every is 0.
const DefaultEvery = 10 * time.Minute

// Options configures the checkpoints of one training run. The zero value
// writes nothing, resumes nothing and never stops.
type Options struct {
	// Path is the file the state is written to ("": none is written, but
	// Stop and Deadline still stop the run at a boundary).
	Path string
	// Every is the interval between checkpoints; 0 means DefaultEvery.
	Every time.Duration
	// Resume names a checkpoint to continue from ("": start afresh).
	Resume string
	// Stop, when closed, makes the run finish its current step, write a
	// checkpoint (with Path) and return a *StoppedError.
	Stop <-chan struct{}
	// Deadline, when not zero, stops the run as Stop does once passed.
	Deadline time.Time
	// Written, when not nil, is told of every checkpoint written.
	Written func(Info)
}

// Info describes a checkpoint written, or the point a run stopped at.
type Info struct {
	Path  string // "" when none was written
	Where string // the learner's position, e.g. "step 120 of 2000"
	Bytes int64  // the file's size
}

// ErrStopped is matched (errors.Is) by the *StoppedError a run returns when
// Stop or Deadline ended it.
var ErrStopped = errors.New("training stopped")

// ErrEveryRank is matched (errors.Is) by an error that every rank of a
// run split across ranks returns at the same point (a refused resume, as
// the learner agreed it), so that a launcher can stop every rank with it
// rather than abort the job. A *StoppedError of such a run is one too
// when the learner passed a collective to Run.Agree.
var ErrEveryRank = errors.New("every rank stopped")

type everyRank struct{ error }

func (e everyRank) Unwrap() error        { return e.error }
func (e everyRank) Is(target error) bool { return target == ErrEveryRank }

// EveryRank marks err (nil: none) as returned by every rank together.
func EveryRank(err error) error {
	if err == nil {
		return nil
	}
	return everyRank{err}
}

// StoppedError is returned by Run.Boundary when the run was asked to stop.
type StoppedError struct {
	Info
	Deadline bool // the deadline, not Stop, ended it
}

func (e *StoppedError) Error() string {
	why := "stopped"
	if e.Deadline {
		why = "stopped at the time limit"
	}
	if e.Path == "" {
		return fmt.Sprintf("training %s at %s; no checkpoint was asked for", why, e.Where)
	}
	return fmt.Sprintf("training %s at %s; checkpoint %s written (resume with --resume %s)", why, e.Where, e.Path, e.Path)
}

// Unwrap makes errors.Is(err, ErrStopped) hold.
func (e *StoppedError) Unwrap() error { return ErrStopped }

// Entry is one thing that identifies a run: a setting and its value, or
// the data and their digest. A checkpoint resumes only a run whose entries
// are the same, in the same order.
type Entry struct {
	Name, Value string
}

// Setting is the entry of a setting, formatted with %v.
func Setting(name string, value any) Entry { return Entry{name, fmt.Sprint(value)} }

// Data is the entry of a data set: its shape, its storage and the SHA-256
// of its values and targets. Dense rows are digested value by value; sparse
// (CSR) rows by each row's number of stored entries and their columns and
// values, as stored. The same numbers held dense and held sparse digest
// differently, and the entry names the storage, so a run is resumed only
// with the storage it was written with: a sparse row's products sum its
// non-zeros in another order than a dense row's, so the two storages give
// models that agree to rounding, not bit for bit, and a resume across them
// would end with neither run's model.
func Data(name string, x pursuit.Matrix, y []float64) Entry {
	h := sha256.New()
	var b [8]byte
	f32 := func(v float32) {
		binary.LittleEndian.PutUint32(b[:4], math.Float32bits(v))
		h.Write(b[:4])
	}
	storage := "dense"
	if x.IsSparse() {
		storage = "sparse"
		for i := range x.Rows {
			idx, val := x.SparseRow(i)
			binary.LittleEndian.PutUint64(b[:], uint64(len(idx)))
			h.Write(b[:])
			for k, j := range idx {
				binary.LittleEndian.PutUint32(b[:4], uint32(j))
				h.Write(b[:4])
				f32(val[k])
			}
		}
	} else {
		for i := range x.Rows {
			for _, v := range x.Row(i) {
				f32(v)
			}
		}
	}
	for _, v := range y {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return Entry{name, fmt.Sprintf("%d rows × %d features (%s), sha256 %s", x.Rows, x.Cols, storage, hex.EncodeToString(h.Sum(nil)[:8]))}
}

// Run is the checkpointing of one training run (nil: none; its methods
// then do nothing).
type Run struct {
	o       Options
	learner string
	entries []Entry
	every   time.Duration
	last    time.Time
	agree   func(stop bool) bool
	// Written counts the checkpoints written.
	Written int
}

// Agree makes every Boundary call f with whether this process is to stop
// and stop when f returns true. Training split across ranks passes a
// collective, so that every rank stops at the same boundary when any is
// asked to (a signal or a deadline seen first by one).
func (r *Run) Agree(f func(stop bool) bool) {
	if r != nil {
		r.agree = f
	}
}

// Start begins the checkpointing of a run of learner identified by
// entries. With o.Resume it reads that checkpoint and returns its state,
// refusing (pursuit.ErrBadInput) one written for another learner, other
// entries or another version, a corrupt one, or a file that is no
// checkpoint. o nil returns a nil Run and no state.
func Start(o *Options, learner string, entries []Entry) (*Run, *Reader, error) {
	if o == nil {
		return nil, nil, nil
	}
	if o.Every < 0 {
		return nil, nil, pursuit.Configf("checkpoint: the interval must be ≥ 0, got %v", o.Every)
	}
	r := &Run{o: *o, learner: learner, entries: entries, every: o.Every, last: time.Now()}
	if r.every == 0 {
		r.every = DefaultEvery
	}
	if o.Resume == "" {
		return r, nil, nil
	}
	st, err := Load(o.Resume, learner, entries)
	if err != nil {
		return nil, nil, err
	}
	return r, st, nil
}

// Load reads the checkpoint at path and checks that it was written by
// learner for a run with the same entries; it returns a reader of the
// learner's state.
func Load(path, learner string, entries []Entry) (*Reader, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, pursuit.BadInputf("checkpoint %s: %w", path, err)
	}
	version, payload, err := modelfile.Read(bytes.NewReader(raw), Magic, func(v uint32) error {
		if v != Version {
			return pursuit.BadInputf("checkpoint %s is of format version %d; this pursuit reads version %d", path, v, Version)
		}
		return nil
	})
	_ = version
	switch {
	case errors.Is(err, modelfile.ErrMagic) && bytes.HasPrefix(raw, []byte("PURSUIT-")):
		return nil, pursuit.BadInputf("checkpoint %s is a model file, not a training checkpoint", path)
	case errors.Is(err, modelfile.ErrMagic):
		return nil, pursuit.BadInputf("checkpoint %s is not a pursuit training checkpoint", path)
	case errors.Is(err, modelfile.ErrCorrupt):
		return nil, pursuit.BadInputf("checkpoint %s is truncated or corrupt (%v)", path, err)
	case err != nil && errors.Is(err, pursuit.ErrBadInput):
		return nil, err
	case err != nil:
		return nil, pursuit.BadInputf("checkpoint %s: %w", path, err)
	}
	rd := &Reader{b: payload}
	got := rd.String()
	n := rd.Int()
	if rd.err != nil || n < 0 || n > 1<<16 {
		return nil, pursuit.BadInputf("checkpoint %s is truncated or corrupt (bad header)", path)
	}
	if got != learner {
		return nil, pursuit.BadInputf("checkpoint %s was written by %s training, not %s", path, got, learner)
	}
	saved := make([]Entry, n)
	for i := range saved {
		saved[i] = Entry{rd.String(), rd.String()}
	}
	if rd.err != nil {
		return nil, pursuit.BadInputf("checkpoint %s is truncated or corrupt (bad header)", path)
	}
	if err := compare(saved, entries); err != nil {
		return nil, pursuit.BadInputf("checkpoint %s does not match this run: %w", path, err)
	}
	return rd, nil
}

// compare names the first entry that differs.
func compare(saved, now []Entry) error {
	for i := range max(len(saved), len(now)) {
		switch {
		case i >= len(saved):
			return fmt.Errorf("this run sets %s (%s), the checkpoint's did not", now[i].Name, now[i].Value)
		case i >= len(now):
			return fmt.Errorf("the checkpoint's run set %s (%s), this one does not", saved[i].Name, saved[i].Value)
		case saved[i].Name != now[i].Name:
			return fmt.Errorf("the checkpoint's run set %s where this one sets %s", saved[i].Name, now[i].Name)
		case saved[i].Value != now[i].Value:
			return fmt.Errorf("%s was %s, is now %s", saved[i].Name, saved[i].Value, now[i].Value)
		}
	}
	return nil
}

// stopping reports whether the run was asked to stop, and whether by the
// deadline.
func (r *Run) stopping() (stop, deadline bool) {
	select {
	case <-r.o.Stop:
		return true, false
	default:
	}
	if !r.o.Deadline.IsZero() && !time.Now().Before(r.o.Deadline) {
		return true, true
	}
	return false, false
}

// Boundary is called by the learner between two steps. It writes the
// state that state encodes when the interval has passed since the last
// checkpoint (or the start), and, when the run is to stop, writes it and
// returns a *StoppedError. where describes the position ("step 12").
func (r *Run) Boundary(where func() string, state func(*Writer)) error {
	if r == nil {
		return nil
	}
	stop, deadline, due := r.Poll()
	if !stop && !due {
		return nil
	}
	info := Info{Where: where()}
	if r.o.Path != "" {
		var err error
		if info, err = r.Save(where, state); err != nil {
			return err
		}
	}
	if stop {
		return &StoppedError{Info: info, Deadline: deadline}
	}
	return nil
}

// Poll is Boundary's test, for a learner that assembles its state from
// several parts before writing it (Save): whether the run is to stop (as
// the ranks agreed, with Agree), whether the deadline rather than Stop
// ended it, and whether a checkpoint is due (the interval has passed since
// the last one, and a Path is set).
func (r *Run) Poll() (stop, deadline, due bool) {
	if r == nil {
		return false, false, false
	}
	stop, deadline = r.stopping()
	if r.agree != nil {
		stop = r.agree(stop)
	}
	return stop, deadline, r.o.Path != "" && time.Since(r.last) >= r.every
}

// Save writes the state now (with Options.Path; nothing without).
func (r *Run) Save(where func() string, state func(*Writer)) (Info, error) {
	info := Info{Where: where()}
	if r == nil || r.o.Path == "" {
		return info, nil
	}
	w := &Writer{}
	w.String(r.learner)
	w.Int(len(r.entries))
	for _, e := range r.entries {
		w.String(e.Name)
		w.String(e.Value)
	}
	state(w)
	var n int64
	err := safefile.WriteFile(r.o.Path, 0o644, func(f io.Writer) error {
		cw := &countWriter{w: f}
		err := modelfile.Write(cw, Magic, Version, w.b)
		n = cw.n
		return err
	})
	if err != nil {
		return info, fmt.Errorf("checkpoint: writing %s: %w", r.o.Path, err)
	}
	r.last = time.Now()
	r.Written++
	info.Path, info.Bytes = r.o.Path, n
	if r.o.Written != nil {
		r.o.Written(info)
	}
	return info, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
