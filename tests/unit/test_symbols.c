/* SPDX-License-Identifier: Apache-2.0 */
/* Symbolising code in a library without local debug information (libdw here,
 * libjvm.so in a JVM) names it from the library's own symbol table and
 * loads nothing.  elfutils' standard lookup ends with its debuginfod
 * client: 7.3 MB of libcurl, GnuTLS and Kerberos kept resident for the
 * life of the JVM, and downloads from the report thread where
 * DEBUGINFOD_URLS is set.  The library looked into is libdw itself, whose
 * debug package (unlike libc6-dbg, which valgrind brings) nothing installs.  jvm/symbols.c looks by build id on the local
 * disk only; this fails if libdebuginfod is mapped after a lookup, and
 * skips where it is not installed, since nothing could load it there.
 * It also checks that names found are kept for the next view while the
 * same files stay mapped (no libdw at all then), and only then. */
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
#ifdef PW_STATIC_LIBDW
    /* The self-contained build links libdw into this program. */
    const char *libdw_in = "test_symbols";
#else
    const char *libdw_in = "libdw";
#endif
    CHECK(where.library != NULL && strstr(where.library, libdw_in) != NULL, "dwfl_begin's library: %s",
          where.library ? where.library : "(none)");
    CHECK(where.symbol != NULL, "dwfl_begin not named from libdw's symbol table");
    char named[512]; /* the strings live until pw_symbols_close */
    snprintf(named, sizeof(named), "%s in %s", where.symbol, where.library);
    pw_symbols_close(s);
    CHECK(!mapped("libdebuginfod"), "a lookup (%s) loaded libdebuginfod", named);
    CHECK(pw_symbols_dwarf_views() == 1, "libdw views after one lookup: %llu",
          (unsigned long long)pw_symbols_dwarf_views());

    /* The same address in the next view: named from what was kept. */
    s = pw_symbols_open();
    pw_symbols_lookup(s, (uintptr_t)&dwfl_begin + 2, &where);
    CHECK(where.symbol != NULL && strstr(named, where.symbol) == named, "kept name %s, first %s",
          where.symbol ? where.symbol : "(none)", named);
    pw_symbols_close(s);
    CHECK(pw_symbols_dwarf_views() == 1, "a second view of the same mappings asked libdw again");

    /* A library mapped since: the kept names are dropped and asked again. */
    static const char *const others[] = {"libm.so.6", "libanl.so.1", "libutil.so.1", "libresolv.so.2"};
    void *other = NULL;
    for (size_t i = 0; other == NULL && i < sizeof(others) / sizeof(others[0]); i++)
        if (!mapped(others[i]))
            other = dlopen(others[i], RTLD_NOW);
    CHECK(other != NULL, "no library left to map: the mappings cannot be changed");
    s = pw_symbols_open();
    pw_symbols_lookup(s, (uintptr_t)&dwfl_begin + 2, &where);
    pw_symbols_close(s);
    CHECK(pw_symbols_dwarf_views() == 2, "a view after a dlopen did not ask libdw: %llu views",
          (unsigned long long)pw_symbols_dwarf_views());
    dlclose(other);

    void *client = dlopen("libdebuginfod.so.1", RTLD_LAZY);
    if (client == NULL) {
        printf("libdebuginfod is not installed: nothing could have loaded it\n");
        return 77;
    }
    dlclose(client);
    printf("named %s; libdebuginfod installed and not loaded\n", named);
    return 0;
}
