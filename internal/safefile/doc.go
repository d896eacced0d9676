// Package safefile writes the files the CLI produces (models, predictions,
// data sets, plots) so that a failed write never damages what was there.
//
// WriteFile writes the new contents to a temporary file beside the file it
// replaces, syncs it, renames it over the target and syncs the directory:
// a reader sees the old file or the complete new one, never a partial one,
// and a write that fails (a full disk, an error from the caller) leaves the
// old file as it was and no temporary file behind.
//
// What the target path names decides the rest:
//   - nothing: a new file is created with the given permission less the
//     process's umask, as os.Create would;
//   - a regular file: it is replaced and keeps its permission bits;
//   - a symlink (or a chain of them, dangling or not): the file at the end
//     of the chain is what gets replaced, in its own directory, and the
//     links stay as they are;
//   - a character device such as /dev/null or a terminal, or a pipe or
//     socket the process holds open (/dev/stdout, /dev/fd/N when those are
//     pipes): the contents are written straight to it, since it cannot be
//     replaced;
//   - a directory, a named pipe or socket in the file system, or a block
//     device: refused with a *NotRegularError, the target untouched.
package safefile
