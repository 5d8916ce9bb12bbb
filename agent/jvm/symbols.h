/* SPDX-License-Identifier: Apache-2.0 */
/* Naming code addresses at report time, never on the hot path: symbol and
 * offset, library, and file:line where the library carries DWARF.  libdw
 * (elfutils) does the ELF and DWARF work: it reads .symtab (so static
 * helpers are named, which dladdr cannot do) and line tables, and it is
 * maintained with the toolchain that writes them. */
#ifndef PW_SYMBOLS_H
#define PW_SYMBOLS_H

#include "base/pinwatch.h"

struct pw_symbols;

struct pw_location {
    const char *symbol;  /* NULL when unknown (JIT code, stripped library) */
    uint64_t offset;     /* from the symbol's start */
    const char *library; /* path of the mapped file, NULL when unknown */
    const char *file;    /* source file, NULL without DWARF */
    int line;            /* 0 without DWARF */
};

/* A view of the process's mappings as they are now.  Only one exists at a
 * time: a second open waits for the first to be closed.  Names found are
 * kept for the next view while the same files stay mapped at the same
 * places, so that a report reads DWARF only for addresses new to it. */
PW_HIDDEN struct pw_symbols *pw_symbols_open(void);
PW_HIDDEN void pw_symbols_close(struct pw_symbols *s);

/* How many views had to ask libdw (for the unit test of the kept names). */
PW_HIDDEN uint64_t pw_symbols_dwarf_views(void);

/* Keeps the file of the library holding ADDRESS (a native method being
 * bound) open, so that a report can still read its symbols and DWARF after
 * the library's loader deletes the file (rocksdbjni, conscrypt,
 * netty-tcnative unpack theirs to a temporary file).  Called from the
 * NativeMethodBind event, never on the JNI path: one dladdr, and one open
 * per library the first time.  Nothing fails: a file already gone, an open
 * refused or a full table leaves that library unheld. */
PW_HIDDEN void pw_symbols_hold_library(jvmtiEnv *jvmti, const void *address);

/* Strings stay valid until pw_symbols_close.  ret is a return address: the
 * call it belongs to is looked up at ret - 1. */
PW_HIDDEN void pw_symbols_lookup(struct pw_symbols *s, uintptr_t ret, struct pw_location *out);

/* Like pw_symbols_lookup, but a call made from code inlined into its
 * caller gives one location per inlined function, innermost first, the
 * real (ELF) function last; inlined[i] tells which are inlined.  Returns the
 * number written (at least 1, at most max). */
PW_HIDDEN int pw_symbols_expand(struct pw_symbols *s, uintptr_t ret, struct pw_location *out, bool *inlined,
                                int max);

#endif
