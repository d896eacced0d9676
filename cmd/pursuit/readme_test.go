package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pursuit-ml/pursuit/internal/onnxrt"
)

// The README's commands are run by TestREADMECommands, verbatim and in
// order, in a fresh copy of the repository. The convention, which
// readmeCommands enforces:
//
//   - every shell command a reader may copy is in a fenced ```sh block, one
//     command per line; a line ending in `\` continues on the next; blank
//     lines and lines starting with # are skipped;
//   - the only other fenced blocks are ```go (library code, not run) and
//     ```text (a file shown, such as a Slurm script, not run), and
//     there are no indented code blocks;
//   - inline code in the prose that looks like a command (a command word
//     such as go, pursuit or bash followed by arguments) is the start of one
//     of the sh commands, or is listed in readmeNotRun with the reason it
//     cannot run in a test.
//
// The first two commands are the main job and the test command, for a new
// user on a fresh machine.

// readmeNotRun lists the command-like inline code of the README that the
// test does not run, each with the reason.
var readmeNotRun = map[string]string{
	"bash .ci/run":                                "CI's entry point: installs packages as root, then runs every check",
	"go vet":                                      "names one of CI's checks",
	"go generate":                                 "regenerates the CUDA kernels' PTX; needs the CUDA toolkit",
	`eval "$(bash scripts/cuda-toolkit.sh)"`:      "downloads about 1 GB of CUDA toolkit packages",
	"go build -tags cuda ./cmd/pursuit":           "needs the CUDA toolkit (the line above)",
	"bash scripts/gpu-check.sh":                   "needs an NVIDIA GPU",
	"apt-get install openmpi-bin libopenmpi-dev":  "installs system packages as root",
	"go build -tags mpi -o pursuit ./cmd/pursuit": "needs Open MPI's headers (libopenmpi-dev)",
	"bash scripts/mpi-check.sh":                   "needs Open MPI; CI runs it",
	"bash scripts/onnxruntime.sh":                 "installs onnxruntime-node from npm into .cache/onnxrt (about 290 MB); CI runs it, and the README's node command uses that install",
}

// readmeCommandWords are the first words that make inline code look like a
// command.
var readmeCommandWords = []string{"go", "pursuit", "bash", "sh", "eval", "apt-get", "apt", "sudo", "git", "make", "svm-train", "svm-predict", "svm-scale", "curl", "export", "cd"}

// readmeEnvGuard is set in the environment of the commands the README test
// runs, so that a test run by one of them does not run the README again.
const readmeEnvGuard = "PURSUIT_README_TEST"

var inlineCode = regexp.MustCompile("`([^`]+)`")

// readmeCommands extracts the sh commands of a README and checks the
// convention above.
func readmeCommands(readme string) ([]string, error) {
	var cmds, prose []string
	var cont strings.Builder
	fence := ""     // language of the open fence; "" outside
	blank := true   // the previous line was blank (an indented block may start)
	inList := false // inside a list item (indented continuation lines)
	for i, line := range strings.Split(readme, "\n") {
		ln := i + 1
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if fence == "" {
				fence = strings.TrimPrefix(trimmed, "```")
				if fence != "sh" && fence != "go" && fence != "text" {
					return nil, fmt.Errorf("README.md:%d: a ```%s block; commands go in ```sh blocks, code in ```go, files shown but not run (a Slurm script) in ```text", ln, fence)
				}
			} else {
				if cont.Len() > 0 {
					return nil, fmt.Errorf("README.md:%d: the sh block ends in a `\\` continuation", ln)
				}
				fence = ""
			}
			blank = false
			continue
		}
		switch fence {
		case "sh":
			if cont.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
				continue
			}
			if strings.HasSuffix(trimmed, `\`) {
				cont.WriteString(strings.TrimSuffix(trimmed, `\`) + " ")
				continue
			}
			cont.WriteString(trimmed)
			cmds = append(cmds, strings.Join(strings.Fields(cont.String()), " "))
			cont.Reset()
			continue
		case "go":
			continue
		}
		if trimmed == "" {
			blank, inList = true, false
			continue
		}
		if strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ") {
			inList = true
		}
		if blank && !inList && (strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")) {
			return nil, fmt.Errorf("README.md:%d: an indented code block; put commands in a ```sh block", ln)
		}
		blank = false
		prose = append(prose, line)
	}
	if fence != "" {
		return nil, fmt.Errorf("README.md: the ```%s block is not closed", fence)
	}
	for _, m := range inlineCode.FindAllStringSubmatch(strings.Join(prose, " "), -1) {
		code := strings.Join(strings.Fields(m[1]), " ")
		words := strings.Fields(code)
		if len(words) < 2 || !contains(readmeCommandWords, words[0]) {
			continue
		}
		if _, ok := readmeNotRun[code]; ok {
			continue
		}
		found := false
		for _, c := range cmds {
			found = found || c == code || strings.HasPrefix(c, code+" ")
		}
		if !found {
			return nil, fmt.Errorf("README.md: the inline code `%s` looks like a command but is in no ```sh block (put it in one, or in readmeNotRun with the reason)", code)
		}
	}
	return cmds, nil
}

func TestReadmeCommandsConvention(t *testing.T) {
	good := "# T\n\n```sh\ngo run ./x demo\n# a comment\n\npursuit train --data a \\\n    --algo kmp\n```\n\nSee `pursuit train` and `go` and `bash .ci/run`.\n\n```go\nx := 1\n```\n- a list\n    continued\n"
	cmds, err := readmeCommands(good)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"go run ./x demo", "pursuit train --data a --algo kmp"}
	if fmt.Sprint(cmds) != fmt.Sprint(want) {
		t.Errorf("commands %q, want %q", cmds, want)
	}
	for _, bad := range []string{
		"text\n\n    pursuit demo\n",             // indented block
		"```bash\npursuit demo\n```\n",           // other language
		"```\npursuit demo\n```\n",               // no language
		"```sh\npursuit demo \\\n```\n",          // dangling continuation
		"Run `pursuit predict --model m` now.\n", // command-like prose
		"```sh\npursuit demo\n",                  // unclosed
	} {
		if _, err := readmeCommands(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// moduleRoot is the repository root (cmd/pursuit's parent's parent).
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// TestREADMEConventions checks the README's commands without running them
// (also under -short): the convention holds, the first two commands are
// the main job and the test command, and pursuit is installed before it
// is used.
func TestREADMEConventions(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := readmeCommands(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 2 || cmds[0] != "go run ./cmd/pursuit demo" || cmds[1] != "go test ./..." {
		t.Fatalf("the README's first two commands are %q; want the main job and the test command", cmds[:min(2, len(cmds))])
	}
	installed := false
	for _, c := range cmds {
		installed = installed || c == "go install ./cmd/pursuit"
		if strings.HasPrefix(c, "pursuit ") && !installed {
			t.Errorf("%q comes before `go install ./cmd/pursuit`", c)
		}
	}
}

// TestREADMECommands runs every command of README.md, verbatim and in
// order, in a fresh copy of the repository: the files git tracks or would
// track (a working tree's uncommitted edits included), committed into a new
// repository so that `git status` shows what the commands leave behind,
// with ../shared beside it linked to the real shared folder when there is
// one, GOBIN inside the temporary directory and first on PATH (so the
// README's `go install ./cmd/pursuit` puts pursuit where the commands find
// it, as the README tells a user to arrange). It fails with the command and
// its output when one exits non-zero, and when the commands leave files git
// does not ignore.
//
// The test command (`go test ./...`) is not run as written (other go test
// commands, such as one package's examples, are): that would run
// this test again from inside itself and double the suite's time. It runs
// as `go vet ./...` (the same packages): go test compiles every package
// and its tests and vets them before it runs anything, and go vet does
// that compiling and vetting (with more analyzers) in the fresh copy
// without linking and running the test binaries; running the tests
// themselves is what the enclosing `go test` run is doing. (`go test
// -run=^$ ./...` would also link the test binaries: 182 s against vet's
// seconds on the shared 2-core machine.) The commands also see
// PURSUIT_README_TEST=1, and this test skips when it is set, so no
// rewriting mistake can recurse.
//
// Left out by -short: it takes about a minute (the demo and the USPS
// example; GOFLAGS=-trimpath lets the copy share the build cache).
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of README.md in a fresh copy (about a minute); left out by -short")
	}
	if os.Getenv(readmeEnvGuard) != "" {
		t.Skip("running inside a README command")
	}
	root := moduleRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := readmeCommands(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: cannot make a fresh copy")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skipf("%s is not a git checkout: cannot tell which files a fresh clone has", root)
	}
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "pursuit")
	freshCopy(t, root, clone)
	shared := filepath.Join(filepath.Dir(root), "shared")
	haveData := false
	if st, err := os.Stat(filepath.Join(shared, "datasets")); err == nil && st.IsDir() {
		real, err := filepath.EvalSymlinks(shared)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(tmp, "shared")); err != nil {
			t.Fatal(err)
		}
		haveData = true
	}
	bin := filepath.Join(tmp, "bin")
	env := append(os.Environ(),
		"GOBIN="+bin,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath"),
		readmeEnvGuard+"=1",
	)
	// onnxruntime (scripts/onnxruntime.sh, which .ci/run calls) is
	// installed in the repository's .cache, not in the fresh copy: the
	// copy's node commands use it there.
	rt, rtErr := onnxrt.Find(root)
	if rtErr == nil {
		env = append(env, "ONNXRT_DIR="+rt.Dir())
	}
	for _, c := range cmds {
		if strings.HasPrefix(c, "node ") && rtErr != nil {
			t.Logf("skipped (%v): %s", rtErr, c)
			continue
		}
		if strings.Contains(c, "../shared/datasets") && !haveData {
			t.Logf("skipped (no ../shared/datasets beside the repository): %s", c)
			continue
		}
		if tool := strings.Fields(c)[0]; strings.HasPrefix(tool, "svm-") {
			if _, err := exec.LookPath(tool); err != nil {
				t.Logf("skipped (%s is not installed: Debian's libsvm-tools): %s", tool, c)
				continue
			}
		}
		run := c
		if c == "go test ./..." { // other go test commands (one package's examples) run as written
			run = "go vet ./..."
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", run)
		cmd.Dir, cmd.Env = clone, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		t0 := time.Now()
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("README command failed (%v):\n$ %s\n%s", err, run, out.String())
		}
		t.Logf("%.1f s: %s", time.Since(t0).Seconds(), run)
	}
	if _, err := os.Stat(filepath.Join(bin, "pursuit")); err != nil {
		t.Errorf("`go install ./cmd/pursuit` did not put pursuit in GOBIN: %v", err)
	}
	st := gitOut(t, clone, "status", "--porcelain", "--untracked-files=all")
	if st != "" {
		t.Errorf("the README's commands leave files git does not ignore:\n%s", st)
	}
}

// freshCopy copies the files of the working tree at root that git tracks
// or would track into dst and commits them there.
func freshCopy(t *testing.T, root, dst string) {
	t.Helper()
	list := gitOut(t, root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, f := range strings.Split(strings.TrimRight(list, "\x00"), "\x00") {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if st.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, to); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	gitOut(t, dst, "init", "-q")
	gitOut(t, dst, "add", "-A")
	gitOut(t, dst, "-c", "user.name=readme-test", "-c", "user.email=readme-test@localhost", "commit", "-q", "-m", "fresh copy")
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, errb.String())
	}
	return out.String()
}
