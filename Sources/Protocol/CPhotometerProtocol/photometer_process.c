#include "photometer_process.h"

#include <stdio.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

void photometer_line_buffer_stdout(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
}

void photometer_keep_freed_memory(size_t bytes) {
#ifdef __GLIBC__
  mallopt(M_TRIM_THRESHOLD, (int)bytes);
  mallopt(M_MMAP_THRESHOLD, (int)bytes);
#else
  (void)bytes;
#endif
}
