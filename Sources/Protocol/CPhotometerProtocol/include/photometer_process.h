// Process-wide settings for programs that speak the protocol, which Swift cannot reach directly.
#ifndef PHOTOMETER_PROCESS_H
#define PHOTOMETER_PROCESS_H

#include <stddef.h>

/// Makes the C `stdout` stream line-buffered, so that what a process prints reaches its log line
/// by line even when descriptor 1 is a pipe. (Swift 6 cannot touch the `stdout` global.)
void photometer_line_buffer_stdout(void);

/// Asks the C allocator to keep up to `bytes` of freed memory for reuse instead of returning it to
/// the system at once, and to serve blocks under `bytes` from the heap rather than fresh mappings;
/// with at most `arenas` arenas, each of which keeps that much. Does nothing where the allocator
/// has no such settings (it is glibc's `mallopt`).
void photometer_keep_freed_memory(size_t bytes, int arenas);

#endif
