/* SPDX-License-Identifier: Apache-2.0 */
/* A pin's stack as one list of frame names, outermost first: the Java stack
 * (when the report has one), the native method, the native frames, and the
 * JNI function that took the pin.  Used by the flame graph and by the
 * collapsed-stack output. */
#ifndef PW_CLI_STACKS_H
#define PW_CLI_STACKS_H

#include "dumps.h"

#include <stdio.h>

enum pw_frame_kind {
    PW_KIND_ROOT,
    PW_KIND_JAVA,
    PW_KIND_METHOD,
    PW_KIND_NATIVE,
    PW_KIND_FUNCTION,
};

struct pw_stack {
    char **names;
    enum pw_frame_kind *kinds;
    size_t n;
};

void pw_stack_of(const struct pw_row *row, const struct dump_site *site, struct pw_stack *out);
void pw_stack_free(struct pw_stack *s);

#endif
