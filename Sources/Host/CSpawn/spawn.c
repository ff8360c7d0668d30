#define _GNU_SOURCE
#include "photometer_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif

// Only async-signal-safe calls run between fork and exec: the parent has other threads, and any
// lock one of them held at the fork stays locked forever in the child.
static void run_child(const char *path, char *const argv[], char *const envp[], const char *directory,
                      int stdin_fd, int stdout_fd, int stderr_fd, int die_with_parent, pid_t parent,
                      int report_fd) {
#ifdef __linux__
  if (die_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) {
      _exit(127);  // The parent died before prctl took effect.
    }
  }
#else
  (void)die_with_parent;
  (void)parent;
#endif
  sigset_t empty;
  sigemptyset(&empty);
  sigprocmask(SIG_SETMASK, &empty, NULL);
  for (int signal_number = 1; signal_number < NSIG; signal_number++) {
    signal(signal_number, SIG_DFL);
  }

  // Move the three descriptors above 2 first, so that dup2 cannot overwrite one with another.
  int sources[3] = {stdin_fd, stdout_fd, stderr_fd};
  for (int i = 0; i < 3; i++) {
    sources[i] = fcntl(sources[i], F_DUPFD_CLOEXEC, 3);
  }
  for (int i = 0; i < 3; i++) {
    if (sources[i] < 0 || dup2(sources[i], i) < 0) {
      int error = errno;
      (void)!write(report_fd, &error, sizeof error);
      _exit(127);
    }
  }
#if defined(__linux__) && defined(SYS_close_range)
  // Close everything but the report pipe, which closes itself on exec.
  if (report_fd > 3) {
    syscall(SYS_close_range, 3, report_fd - 1, 0);
  }
  syscall(SYS_close_range, report_fd + 1, ~0U, 0);
#endif
  if (directory != NULL && chdir(directory) != 0) {
    int error = errno;
    (void)!write(report_fd, &error, sizeof error);
    _exit(127);
  }
  execve(path, argv, envp);
  int error = errno;
  (void)!write(report_fd, &error, sizeof error);
  _exit(127);
}

int photometer_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
                     int stdin_fd, int stdout_fd, int stderr_fd, int die_with_parent, pid_t *pid) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    return errno;
  }
  pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) {
    int error = errno;
    close(report[0]);
    close(report[1]);
    return error;
  }
  if (child == 0) {
    close(report[0]);
    run_child(path, argv, envp, directory, stdin_fd, stdout_fd, stderr_fd, die_with_parent, parent, report[1]);
  }
  close(report[1]);
  int child_error = 0;
  ssize_t count;
  do {
    count = read(report[0], &child_error, sizeof child_error);
  } while (count < 0 && errno == EINTR);
  close(report[0]);
  if (count > 0) {
    waitpid(child, NULL, 0);
    return child_error;
  }
  *pid = child;
  return 0;
}

int photometer_pipe_cloexec(int fds[2], int capacity) {
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return -1;
  }
#ifdef F_SETPIPE_SZ
  if (capacity > 0) {
    (void)fcntl(fds[0], F_SETPIPE_SZ, capacity);  // Best effort: the system may cap it lower.
  }
#else
  (void)capacity;
#endif
  return 0;
}
