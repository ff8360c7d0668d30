#include "photometer_process.h"

#include <stdio.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

void photometer_line_buffer_stdout(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
}

void photometer_keep_freed_memory(size_t bytes, int arenas) {
#ifdef __GLIBC__
  mallopt(M_TRIM_THRESHOLD, (int)bytes);
  mallopt(M_MMAP_THRESHOLD, (int)bytes);
  // Each arena keeps up to `bytes` of freed memory; glibc makes up to 8 per core.
  mallopt(M_ARENA_MAX, arenas);
#else
  (void)bytes;
  (void)arenas;
#endif
}
