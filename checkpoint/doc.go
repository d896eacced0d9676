// Package checkpoint writes and reads the training state of a long run, so
// that a run killed or preempted resumes where it stopped and ends with the
// same model as an uninterrupted one (issue 33).
//
// A learner that checkpoints takes an *Options in its configuration. It
// calls Start once, before its first step, with the entries that identify
// the run (the learner, its settings and a digest of its data); Start
// reads the checkpoint to resume from, if any, refusing one written for
// other data, other settings, another learner or another format version,
// a truncated or corrupt file and a model file, each with one line naming
// what differs. At every step or iteration boundary the learner calls
// Run.Boundary, which writes the state (through internal/safefile, so a
// file is replaced whole or not at all) when the interval has passed, and
// when Options.Stop is closed or Options.Deadline has passed writes it
// once more and returns a *StoppedError: the learner returns it, and the
// caller (the CLI) exits with the status of the signal.
//
// A learner whose state comes in parts that finish at different moments
// (KMP's one-vs-rest outputs) asks Run.Poll whether to stop or to write,
// and writes with Run.Save. Training split across ranks passes a
// collective to Run.Agree, so that a stop seen by one rank stops every
// rank at the same boundary (or, where the ranks exchange records at
// every step anyway, as the SVM's working-set selection does, carries
// each rank's Poll in them and acts on what they agree); rank 0 writes,
// every rank resumes from the file, and errors that every rank returns
// together are marked with EveryRank (ErrEveryRank), so that a launcher
// stops the ranks instead of aborting the job. DataAcross is the data
// entry of every rank's rows, and PackBytes carries a rank's encoded
// state in the float64 collectives to rank 0.
//
// The file is a modelfile frame with its own magic ("PURSUIT-CHECKPOINT"),
// so no model file is read as a checkpoint nor the reverse. Its payload
// is the learner's name, the identifying entries and the learner's
// state, which Writer and Reader encode.
package checkpoint
