/* SPDX-License-Identifier: Apache-2.0 */
/* Symbolising code in a library without local debug information (libdw here,
 * libjvm.so in a JVM) names it from the library's own symbol table and
 * loads nothing.  elfutils' standard lookup ends with its debuginfod
 * client: 7.3 MB of libcurl, GnuTLS and Kerberos kept resident for the
 * life of the JVM, and downloads from the report thread where
 * DEBUGINFOD_URLS is set.  The library looked into is libdw itself, whose
 * debug package (unlike libc6-dbg, which valgrind brings) nothing installs.  jvm/symbols.c looks by build id on the local
 * disk only; this fails if libdebuginfod is mapped after a lookup, and
 * skips where it is not installed, since nothing could load it there. */
#include "jvm/symbols.h"
#include "unit_check.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <string.h>

static bool
mapped(const char *name)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL, "cannot read /proc/self/maps");
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof(line), maps) != NULL)
        found = strstr(line, name) != NULL;
    fclose(maps);
    return found;
}

int
main(void)
{
    CHECK(!mapped("libdebuginfod"), "libdebuginfod mapped before any lookup");
    struct pw_symbols *s = pw_symbols_open();
    CHECK(s != NULL, "pw_symbols_open failed");
    struct pw_location where;
    /* A return address inside libdw's dwfl_begin: looked up at ret - 1. */
    pw_symbols_lookup(s, (uintptr_t)&dwfl_begin + 2, &where);
    CHECK(where.library != NULL && strstr(where.library, "libdw") != NULL, "dwfl_begin's library: %s",
          where.library ? where.library : "(none)");
    CHECK(where.symbol != NULL, "dwfl_begin not named from libdw's symbol table");
    char named[512]; /* the strings live until pw_symbols_close */
    snprintf(named, sizeof(named), "%s in %s", where.symbol, where.library);
    pw_symbols_close(s);
    CHECK(!mapped("libdebuginfod"), "a lookup (%s) loaded libdebuginfod", named);

    void *client = dlopen("libdebuginfod.so.1", RTLD_LAZY);
    if (client == NULL) {
        printf("libdebuginfod is not installed: nothing could have loaded it\n");
        return 77;
    }
    dlclose(client);
    printf("named %s; libdebuginfod installed and not loaded\n", named);
    return 0;
}
