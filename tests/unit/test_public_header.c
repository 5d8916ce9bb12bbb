/* SPDX-License-Identifier: Apache-2.0 */
/* The public header compiles on its own, with only include/ (source and
 * build) on the path, and carries the project's version (generated into
 * pinwatch/version.h from meson.project_version()). */
#include "pinwatch/pinwatch.h"

#include <stdio.h>
#include <string.h>

int
main(void)
{
    if (strcmp(PINWATCH_VERSION, PROJECT_VERSION) != 0) {
        printf("FAIL: PINWATCH_VERSION \"%s\", project version \"%s\"\n", PINWATCH_VERSION, PROJECT_VERSION);
        return 1;
    }
    if (PINWATCH_OK != 0 || PINWATCH_BAD_OPTIONS == PINWATCH_OK) {
        printf("FAIL: status codes\n");
        return 1;
    }
    printf("PASS: pinwatch/pinwatch.h on its own, version %s\n", PINWATCH_VERSION);
    return 0;
}
