#include "photometer_stdio.h"

#include <stdio.h>

void photometer_line_buffer_stdout(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
}
