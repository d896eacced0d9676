package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/engine/comm"
)

// version is the version of the pursuit command and library it is built
// from.
const version = "0.1.0-dev"

// Exit statuses: 0 success, 2 for any error a person can act on (bad flags,
// missing or malformed files, unknown algorithm, model/data mismatch) and
// for an internal error caught as a last resort.
const (
	exitOK    = 0
	exitError = 2
)

// env is what a command runs with: its output streams and whether stderr is
// a terminal (for the progress bar). Tests run commands in-process with
// buffers; main wires it to the process.
type env struct {
	stdout, stderr io.Writer
	stderrTTY      bool
	// comm is the group of ranks the command runs on (runRanks); nil is a
	// single process.
	comm comm.Comm
}

// command is one subcommand.
type command struct {
	name     string
	summary  string
	run      func(ev *env, args []string) error
	usage    string // the synopsis line(s)
	examples string
	// flagNotes, if not nil, adds a paragraph after the flags (train and
	// cv: which flags apply to which algorithm).
	flagNotes func(fs *flag.FlagSet) string
	// helpFlags, if not nil, is the flag set `pursuit help NAME` lists.
	helpFlags func() *flag.FlagSet
}

// withFlags completes the command table's entry c: its run parses the
// flags of newFlags (refused on every rank together across ranks) and
// calls run with them; with help, `pursuit help NAME` lists them too.
func withFlags[T any](c *command, help bool, newFlags func() (*flag.FlagSet, T), run func(ev *env, fs *flag.FlagSet, o T) error) *command {
	if help {
		c.helpFlags = func() *flag.FlagSet { fs, _ := newFlags(); return fs }
	}
	c.run = func(ev *env, args []string) error {
		fs, o := newFlags()
		if err := parseFlags(ev, c, fs, args); err != nil {
			if errors.Is(err, errHelp) {
				return err
			}
			return ev.together(err)
		}
		return run(ev, fs, o)
	}
	return c
}

func commands() []*command {
	return []*command{
		trainCommand(),
		predictCommand(),
		exportCommand(),
		compressCommand(),
		cvCommand(),
		plotCommand(),
		subspaceCommand(),
		boundCommand(),
		demoCommand(),
		infoCommand(),
		equivCommand(),
	}
}

func main() {
	setGCPercent()
	releaseStartupPages()
	// The processes launched together by mpirun or srun (a binary built
	// with -tags mpi); one process otherwise.
	world, err := comm.World()
	if err != nil {
		fmt.Fprintf(os.Stderr, "pursuit: starting MPI: %s\n", oneLine(err.Error()))
		os.Exit(exitError)
	}
	ev := &env{stdout: os.Stdout, stderr: os.Stderr, stderrTTY: isTerminal(os.Stderr), comm: world}
	code := run(ev, os.Args[1:])
	if err := world.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "pursuit: %s\n", oneLine(err.Error()))
		code = max(code, exitError)
	}
	os.Exit(code)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// errHelp is returned when --help was asked for: the help was printed and
// the exit status is 0.
var errHelp = flag.ErrHelp

// run executes the command line args and returns the exit status.
func run(ev *env, args []string) (code int) {
	if ev.comm != nil && ev.comm.Size() > 1 {
		return runRanks(ev, args)
	}
	name := "pursuit"
	defer func() {
		// Last resort: every input problem is validated and reported as an
		// error; this only turns a bug into one line instead of a trace.
		if r := recover(); r != nil {
			fmt.Fprintf(ev.stderr, "%s: internal error: %v (this is a bug; please report it with the command line)\n", name, oneLine(fmt.Sprint(r)))
			code = exitError
		}
	}()
	if len(args) == 0 {
		fmt.Fprintln(ev.stderr, "pursuit: no command given (try `pursuit demo`, or `pursuit help` for the list of commands)")
		return exitError
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c := findCommand(args[1]); c != nil {
				commandUsage(ev.stdout, c, nil)
				return exitOK
			}
			fmt.Fprintf(ev.stderr, "pursuit help: unknown command %q (want one of %s)\n", args[1], commandNames())
			return exitError
		}
		topUsage(ev.stdout)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintf(ev.stdout, "pursuit %s\n", version)
		return exitOK
	}
	c := findCommand(args[0])
	if c == nil {
		fmt.Fprintf(ev.stderr, "pursuit: unknown command %q (want one of %s; see `pursuit help`)\n", args[0], commandNames())
		return exitError
	}
	name = "pursuit " + c.name
	err := c.run(ev, args[1:])
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		return exitOK
	}
	fmt.Fprintf(ev.stderr, "%s: %s\n", name, userMessage(err.Error()))
	var st interface{ ExitCode() int }
	if errors.As(err, &st) {
		return st.ExitCode()
	}
	return exitError
}

// execCommand runs c with args; a panic (a bug) becomes an error, so that
// a rank of a group reports it like any other.
func execCommand(ev *env, c *command, args []string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v (this is a bug; please report it with the command line)", oneLine(fmt.Sprint(r)))
		}
	}()
	return c.run(ev, args)
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func topUsage(w io.Writer) {
	fmt.Fprintf(w, `pursuit %s: sparse kernel machines (kernel matching pursuit, stochastic KMP,
SVM, sparse large margin classifiers) on pure-Go, AVX2 and CUDA backends.

Usage:
  pursuit <command> [flags]

Commands:
`, version)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "pursuit <command> --help" for the flags and examples of a command.
Start with "pursuit demo": it generates data, trains every algorithm and
writes plots, with no arguments.
`)
}

// commandUsage prints the help of one command; fs, when not nil, lists the
// flags.
func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "pursuit %s: %s\n\nUsage:\n", c.name, c.summary)
	for i, l := range strings.Split(strings.TrimSpace(c.usage), "\n") {
		indent := "  "
		if i > 0 && !strings.HasPrefix(strings.TrimSpace(l), "pursuit ") {
			indent = "      " // a continuation of the synopsis
		}
		fmt.Fprintf(w, "%s%s\n", indent, strings.TrimSpace(l))
	}
	if fs == nil {
		fs = flag.NewFlagSet(c.name, flag.ContinueOnError)
		if c.helpFlags != nil {
			fs = c.helpFlags()
		}
	}
	fmt.Fprintln(w, "\nFlags:")
	printFlags(w, fs)
	if c.flagNotes != nil {
		fmt.Fprintln(w, "\nFlags for some algorithms only (refused with the others):")
		for _, l := range strings.Split(strings.TrimRight(c.flagNotes(fs), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if c.examples != "" {
		fmt.Fprintln(w, "\nExamples:")
		for _, l := range strings.Split(strings.Trim(c.examples, "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", strings.TrimRight(l, " "))
		}
	}
}

// printFlags lists the flags of fs GNU-style (--name), as the
// documentation writes them; Go's flag package accepts -name and --name.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		fmt.Fprintln(w, line)
		def := ""
		switch f.DefValue {
		case "", "0", "false":
		default:
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "        %s%s\n", strings.ReplaceAll(usage, "\n", "\n        "), def)
	})
}

// parseFlags parses args with fs for command c. --help prints the command's
// help on stdout and returns errHelp. Positional arguments are refused: every
// input is named by a flag.
func parseFlags(ev *env, c *command, fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(ev.stdout, c, fs)
			return errHelp
		}
		return fmt.Errorf("%s (see `pursuit %s --help`)", twoDashes(err.Error()), c.name)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: inputs are given by flags, e.g. --data FILE (see `pursuit %s --help`)", fs.Arg(0), c.name)
	}
	return checkCommonFlags(ev, c, fs)
}

// checkCommonFlags checks the flags several commands share, once for all:
// --quiet against --progress, and --mem-budget's unit and size (a note on
// stderr when the spelling leaves the unit open or the budget exceeds the
// machine's memory).
func checkCommonFlags(ev *env, c *command, fs *flag.FlagSet) error {
	set := setFlags(fs)
	if f := fs.Lookup("threads"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil {
			if err := checkThreads(n); err != nil {
				return err
			}
		}
	}
	if err := checkKernelWidth(fs, set); err != nil {
		return err
	}
	if q, p := fs.Lookup("quiet"), fs.Lookup("progress"); q != nil && p != nil && set["quiet"] && set["progress"] &&
		q.Value.String() == "true" && p.Value.String() != progressOff {
		return fmt.Errorf("--quiet and --progress %s contradict each other (--quiet is --progress off)", p.Value.String())
	}
	f := fs.Lookup("mem-budget")
	if f == nil || !set["mem-budget"] {
		return nil
	}
	_, note, warning, err := engine.CheckBudget("--mem-budget", f.Value.String())
	if err != nil || ev.world().Rank() != 0 {
		return err
	}
	if note != "" {
		fmt.Fprintf(ev.stderr, "pursuit %s: note: %s\n", c.name, note)
	}
	if warning != "" {
		fmt.Fprintf(ev.stderr, "pursuit %s: warning: %s\n", c.name, warning)
	}
	return nil
}

// flagNameInError matches the flag names in the flag package's errors,
// which it prints with one dash ("flag provided but not defined: -x",
// "invalid value "a" for flag -x: ...").
var flagNameInError = regexp.MustCompile(`(defined: |argument: |for flag |value "[^"]*" for )-([^-\s:][^\s:]*)`)

// twoDashes rewrites the flag names in a flag-package error with two
// dashes, as the help and the docs spell them.
func twoDashes(msg string) string {
	return flagNameInError.ReplaceAllString(msg, "${1}--${2}")
}

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}
