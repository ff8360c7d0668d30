// Starting a child process with its standard streams on given descriptors.
#ifndef PHOTOMETER_SPAWN_H
#define PHOTOMETER_SPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (both NULL-terminated) in `directory` (or the current
/// one when NULL), its standard input, output and error on `stdin_fd`, `stdout_fd`, `stderr_fd`.
///
/// The child gets default signal dispositions and an empty signal mask, no other descriptors,
/// and, when `die_with_parent` is set, SIGKILL once the thread that called this function exits
/// (Linux's PR_SET_PDEATHSIG: call it from a thread that lives as long as the process).
///
/// Returns 0 and stores the pid, or returns the errno of the step that failed (fork, chdir or
/// exec, as the child reported it).
int photometer_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
                     int stdin_fd, int stdout_fd, int stderr_fd, int die_with_parent, pid_t *pid);

/// Creates a pipe whose both ends close on exec and asks for `capacity` bytes of buffer (Linux's
/// default is 64 KiB; a larger one lets a 1 MiB image cross in one write). Returns 0, or -1 with
/// errno set.
int photometer_pipe_cloexec(int fds[2], int capacity);

#endif
