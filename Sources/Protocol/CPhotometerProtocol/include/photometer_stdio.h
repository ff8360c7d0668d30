// C stdio settings that Swift 6 cannot reach (the `stdout` global is not concurrency-safe there).
#ifndef PHOTOMETER_STDIO_H
#define PHOTOMETER_STDIO_H

/// Makes the C `stdout` stream line-buffered, so that what a process prints reaches its log line
/// by line even when descriptor 1 is a pipe.
void photometer_line_buffer_stdout(void);

#endif
