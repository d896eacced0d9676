package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// Running across ranks. `mpirun -np N pursuit train ...` (a binary built
// with -tags mpi) starts N processes; comm.World connects them. Every rank
// runs the same command: train splits the training rows into blocks, one per
// rank (data.WithShard), and trains one model together with them; cv spreads
// its (grid setting, fold) trainings over the ranks. Rank 0 alone writes
// files and prints; the other ranks print only their own errors.
//
// Errors. Where every rank reaches the same point (the checks before
// training, the end of loading, saving), the ranks agree on the outcome
// (agree, a collective): every rank stops with exit status 2, each failing
// rank's error is printed once (rank 0's, and another rank's when it
// differs), and no MPI job is aborted. An error that only some ranks meet
// elsewhere (inside training, where the others wait in a collective) is
// printed by its rank, which then aborts the job (comm.Abort).

// multiRankCommands are the commands that run across ranks.
var multiRankCommands = []string{"train", "cv"}

// agreedError is an error every rank of the group knows about
// (engine.AgreedError).
type agreedError = engine.AgreedError

// world returns the communicator of the command: the launcher's world
// (main), an in-process rank (tests), or a single process.
func (ev *env) world() comm.Comm {
	if ev.comm == nil {
		return &comm.Single{}
	}
	return ev.comm
}

// together is the check every rank makes at the same point of a command
// (engine.AgreeOn): in one process it returns err; across ranks it is a
// collective that stops every rank when any failed.
func (ev *env) together(err error) error { return engine.AgreeOn(ev.world(), err) }

// agree is engine.AgreeFailure: every rank learns whether any failed.
func agree(c comm.Comm, err error) error { return engine.AgreeFailure(c, err) }

// runRanks runs the command line args on one rank of a group of several:
// it makes sure every rank has the same command line, runs the command
// (its output discarded on ranks other than 0) and reports the outcome.
func runRanks(ev *env, args []string) int {
	c := ev.comm
	rank, size := c.Rank(), c.Size()
	quiet := ev
	if rank != 0 {
		quiet = &env{stdout: io.Discard, stderr: io.Discard, comm: c}
	}
	name := "pursuit"
	err := engine.CheckConfig(c, []comm.Entry{comm.Setting("command line", comm.CommandLine(args))})
	if err == nil && len(args) > 0 {
		switch cmd := findCommand(args[0]); {
		case cmd != nil && contains(multiRankCommands, cmd.name):
			name = "pursuit " + cmd.name
			err = execCommand(quiet, cmd, args[1:])
		case cmd != nil:
			name = "pursuit " + cmd.name
			err = &agreedError{Err: fmt.Errorf("pursuit %s runs in one process, and this job has %d ranks: start it without mpirun or srun (only %s run across ranks)",
				cmd.name, size, strings.Join(multiRankCommands, " and ")), Print: rank == 0}
		default: // help, version and mistakes: rank 0 answers
			return run(&env{stdout: quiet.stdout, stderr: quiet.stderr}, args)
		}
	}
	if err == nil && len(args) == 0 {
		return run(&env{stdout: quiet.stdout, stderr: quiet.stderr}, args)
	}
	return reportRanks(ev, name, err)
}

// reportRanks reports the outcome err of command name on this rank of
// ev.comm and returns the exit status: an agreed error is printed where
// agree said (status 2); any other error is printed with the rank, and the
// job is aborted (the other ranks may be waiting in a collective).
func reportRanks(ev *env, name string, err error) int {
	c := ev.comm
	rank, size := c.Rank(), c.Size()
	var ag *agreedError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ag):
		if ag.Print {
			where := ""
			if rank != 0 {
				where = fmt.Sprintf("rank %d of %d: ", rank, size)
			}
			fmt.Fprintf(ev.stderr, "%s: %s%s\n", name, where, oneLine(err.Error()))
		}
		var st interface{ ExitCode() int }
		if errors.As(err, &st) {
			return st.ExitCode() // a training stopped by a signal or the time limit
		}
		return exitError
	}
	// This rank failed where the others may wait for it in a collective:
	// its error, then the whole job is stopped.
	fmt.Fprintf(ev.stderr, "%s: rank %d of %d: %s\n", name, rank, size, oneLine(err.Error()))
	c.Abort(fmt.Errorf("%s failed on rank %d (its error is above)", name, rank))
	return exitError
}

// notDistributed turns a training function's refusal to run across ranks
// (comm.ErrNotDistributed, met by every rank before any collective) into
// one agreed error that says what to do; other errors are returned as
// they are.
func notDistributed(e *engine.Engine, algo string, err error) error {
	c := e.Comm()
	if c.Size() == 1 || !errors.Is(err, comm.ErrNotDistributed) {
		return err
	}
	return agree(c, fmt.Errorf("--algo %s does not split its training rows across ranks, so it cannot train on this job's %d ranks: start it in one process, without mpirun or srun (%w)", algo, c.Size(), err))
}

// validate checks train's flags (those that do not depend on the data).
func (o *trainOptions) validate(set map[string]bool) error {
	if err := o.dataFlags.validate(set, true); err != nil {
		return err
	}
	if err := o.modelFlags.validate(set); err != nil {
		return err
	}
	if err := o.dataFlags.implyRegression(&o.modelFlags); err != nil {
		return err
	}
	return flagErr(o.boundFlags.Validate(o.Algo, o.Regression, set))
}

// dataEntries are the data files of the flags, for engine.CheckConfig: every
// rank must read identical files.
func dataEntries(d *dataFlags) []comm.Entry {
	entries := []comm.Entry{comm.File("--data "+d.data, d.data)}
	if d.test != "" {
		entries = append(entries, comm.File("--test "+d.test, d.test))
	}
	return entries
}
