/* SPDX-License-Identifier: Apache-2.0 */
/* pw_suppress_load on any file content, then pw_suppress_match.  The rules
 * are file-static and pw_suppress has no reset, so suppress.c is compiled
 * into this target (not linked from pinwatch_fuzz_sources) and the rules
 * are dropped after every input. */
#include "../../agent/state/suppress.c"
#include "fuzz_check.h"

#include <unistd.h>

static char path[64];
static int fd = -1;

static void
reset(void)
{
    for (size_t i = 0; i < nrules; i++)
        free(rules[i].pattern);
    free(rules);
    rules = NULL;
    nrules = 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    if (fd < 0) {
        snprintf(path, sizeof(path), "/tmp/pw-fuzz-suppress-XXXXXX");
        fd = mkstemp(path);
        CHECK(fd >= 0, "mkstemp");
    }
    CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size, "write %s", path);
    char err[256];
    memset(err, 'x', sizeof(err));
    bool ok = pw_suppress_load(path, err, sizeof(err));
    if (ok) {
        CHECK(nrules <= MAX_RULES, "%zu rules", nrules);
        for (size_t i = 0; i < nrules; i++)
            CHECK(rules[i].pattern != NULL && rules[i].pattern[0] != '\0', "empty pattern kept");
        /* Match against strings taken from the input itself. */
        char probe[64];
        size_t n = size < sizeof(probe) - 1 ? size : sizeof(probe) - 1;
        memcpy(probe, data, n);
        probe[n] = '\0';
        for (uint32_t fn = 0; fn <= PW_FN_COUNT; fn++) {
            (void)pw_suppress_match(probe, probe, fn);
            (void)pw_suppress_match(NULL, NULL, fn);
        }
        (void)pw_suppress_any();
    } else {
        size_t len = strnlen(err, sizeof(err));
        CHECK(len < sizeof(err) && len > 0, "error not terminated or empty");
        CHECK(memchr(err, '\n', len) == NULL, "error spans lines: %s", err);
    }
    reset();
    return 0;
}
