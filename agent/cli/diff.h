/* `pinwatch diff`: live pins per (native method, JNI function) between two reports. */
#ifndef PW_CLI_DIFF_H
#define PW_CLI_DIFF_H

#include "dumps.h"

#include <stdio.h>

/* Prints the table; all rows with live pins in either report unless only
 * changes are wanted. */
void pw_diff(FILE *out, const struct pw_dump *a, const struct pw_dump *b);

#endif
