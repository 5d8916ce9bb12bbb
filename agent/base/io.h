/* SPDX-License-Identifier: Apache-2.0 */
/* Writes that finish: write(2) again after a short write or EINTR, so that a
 * report (or a command's output) reaches its file whole. */
#ifndef PW_IO_H
#define PW_IO_H

#include "base/pinwatch.h"

/* False, with errno set, when fd took less than len bytes. */
PW_HIDDEN bool pw_write_all(int fd, const void *data, size_t len);

/* A file option's name with "%p" replaced by the pid and "%%" by "%";
 * false when it does not fit in len bytes. */
PW_HIDDEN bool pw_expand_path(const char *pattern, char *out, size_t len);

#endif
