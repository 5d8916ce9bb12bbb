/* SPDX-License-Identifier: Apache-2.0 */
/* `pinwatch diff`: live pins per (native method, JNI function) between two reports. */
#ifndef PW_CLI_DIFF_H
#define PW_CLI_DIFF_H

#include "dumps.h"
#include "fleet.h"

#include <stdio.h>

/* Prints the table; all rows with live pins in either report unless only
 * changes are wanted. */
void pw_diff(FILE *out, const struct pw_dump *a, const struct pw_dump *b);

/* Many JVMs: each one's first report against its last (or against its
 * start when it wrote one), a row per JVM naming it, most growth first;
 * then the rows summed over the JVMs, and the total. */
void pw_diff_fleet(FILE *out, const struct pw_fleet *f);

#endif
