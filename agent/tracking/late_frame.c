/* SPDX-License-Identifier: Apache-2.0 */
/* How an invocation that began without a thunk gets a shadow frame.
 *
 * The JVM calls a native method's function from code it generated (the
 * compiled native wrapper, or the interpreter's native entry), which lies
 * in no ELF object.  From the Get's caller outwards, the native method's C
 * frames all lie in ELF objects; the first frame whose caller does not is
 * the function the JVM called for this invocation, and the word its call
 * pushed is where the invocation returns.  Putting pw_native_exit there is
 * exactly what pw_native_entry does at entry (HotSpot never reads that
 * word: it walks Java frames from the anchor its wrapper set, whose pc it
 * stores itself), so the return is seen, the frame popped, and the pins it
 * returns holding leaked, through the same exit as a thunked method.
 *
 * Nothing is changed unless every step is proven:
 *  - libunwind steps by DWARF unwind info only: every frame walked must
 *    have its FDE (libunwind's x86-64 fallback guesses frames from rbp; a
 *    guessed frame would give a guessed slot), and none is a signal frame;
 *  - the Get's caller lies in an ELF object; if not, the Get was the native
 *    function's tail call, and the frame marked is the JNI hook's own,
 *    found as the one whose caller is that address (it must be ours);
 *  - the frame found is not pinwatch's own, and no shadow frame of ours
 *    lies between (pw_native_exit met on the way);
 *  - the slot is where the architecture's ABI puts a return address, and
 *    holds exactly the caller's pc (return_slot.c);
 *  - no hardware shadow stack is on (return_slot.c).
 * What is not proven is the frame's identity beyond "the innermost native
 * frame called from generated code": if code generated outside any ELF
 * object other than the JVM's (a foreign JIT) calls C that makes the Get,
 * that C function's return is taken as the invocation's.  Control flow is
 * the same either way: pw_native_exit returns to the saved address with
 * the result registers untouched; only the accounting moves.
 *
 * The method itself is not bound again here: which function the JVM will
 * call next time cannot be learnt from this invocation's stack (the
 * method may have been bound again since this invocation began, the
 * interpreter calls through a register, the function called may have made
 * a tail call), so each invocation pays this walk at its first Get. */
#include "tracking/late_frame.h"
#include "tracking/refs.h"
#include "base/log.h"
#include "state/methods.h"
#include "state/frame_layout.h"
#include "tracking/return_slot.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>

/* Our own frames (hook, tracker, this file) before the Get's caller: the
 * walk gives up if it has not met the Get's caller by then. */
#define OWN_FRAMES_MAX 12
/* C frames of one native method between its entry and the Get. */
#define NATIVE_FRAMES_MAX 256

/* glibc 2.35's _dl_find_object, found at run time: the self-contained agent
 * is built against glibc 2.31 and loads into glibc 2.28, where the symbol
 * does not exist (a link-time reference would keep the agent from loading).
 * The struct is glibc's on x86-64 and aarch64 (neither has dlfo_eh_dbase or
 * dlfo_eh_count), with room to spare: glibc writes only its own size. */
struct pw_dl_find_object {
    unsigned long long flags;
    void *map_start;
    void *map_end;
    void *link_map;
    void *eh_frame;
    unsigned long long reserved[15];
};
typedef int (*pw_dl_find_object_fn)(void *pc, struct pw_dl_find_object *result);
/* The resolved function, or find_unresolved until the first call, or
 * find_absent where glibc has none. */
static int find_unresolved(void *pc, struct pw_dl_find_object *result);
static int
find_absent(void *pc, struct pw_dl_find_object *result)
{
    return -2;
}
static _Atomic(pw_dl_find_object_fn) find_object = find_unresolved;

static int
find_unresolved(void *pc, struct pw_dl_find_object *result)
{
    /* Two threads may both look it up: they store the same answer. */
    void *f = dlsym(RTLD_DEFAULT, "_dl_find_object");
    pw_dl_find_object_fn fn = f != NULL ? (pw_dl_find_object_fn)f : find_absent;
    atomic_store_explicit(&find_object, fn, memory_order_release);
    return fn(pc, result);
}

/* The ELF object (its load address) that holds pc, or NULL for code in
 * none, such as the JVM's generated code. */
static const void *
elf_object(uintptr_t pc)
{
    /* Lock-free, unlike dladdr, which takes the loader's lock. */
    struct pw_dl_find_object found;
    int rc = atomic_load_explicit(&find_object, memory_order_acquire)((void *)pc, &found);
    if (rc != -2)
        return rc == 0 ? found.map_start : NULL;
    Dl_info info;
    return dladdr((void *)pc, &info) != 0 ? info.dli_fbase : NULL;
}

static bool
in_elf_object(uintptr_t pc)
{
    return elf_object(pc) != NULL;
}

static bool
in_pinwatch(uintptr_t pc)
{
    return elf_object(pc) == elf_object((uintptr_t)pw_late_frame_push);
}

/* The frame at the cursor has DWARF unwind info covering pc (the byte
 * before it for a frame that made a call); *start: its function's entry.
 * libunwind's x86-64 answer for a frame without info is a made-up one-byte
 * procedure at the pc itself. */
static bool
has_unwind_info(unw_cursor_t *c, uintptr_t pc, bool called, uintptr_t *start)
{
    unw_proc_info_t pi;
    if (unw_get_proc_info(c, &pi) != 0 || pi.end_ip <= pi.start_ip + 1)
        return false;
    uintptr_t in = called ? pc - 1 : pc;
    if (in < pi.start_ip || in >= pi.end_ip)
        return false;
    *start = (uintptr_t)pi.start_ip;
    return true;
}

static bool
registers(unw_cursor_t *c, uintptr_t *ip, uintptr_t *sp)
{
    unw_word_t i, s;
    if (unw_get_reg(c, UNW_REG_IP, &i) != 0 || unw_get_reg(c, UNW_REG_SP, &s) != 0 || i == 0)
        return false;
    *ip = (uintptr_t)i;
    *sp = (uintptr_t)s;
    return true;
}

static void
push(struct pw_thread *t, struct pw_method *m, uintptr_t *slot, uintptr_t returns_to)
{
    struct pw_frame *f = &t->frames[t->depth];
    f->method = m;
    f->ret = (void *)returns_to;
    f->serial = ++t->serial;
    f->live = 0;
    pw_frame_set_locals(f, 0);
    t->depth++;
    pw_return_slot_redirect(slot, pw_native_returns[0]);
}

bool
pw_late_frame_push(struct pw_thread *t, struct pw_method *m, void *ret)
{
    static atomic_bool told;
    const char *why = NULL;
    if (t->depth >= PW_MAX_DEPTH)
        return false;
    if (!pw_return_slot_usable(&why)) {
        if (!atomic_load_explicit(&told, memory_order_relaxed) && !atomic_exchange(&told, true))
            pw_log_warn(
                "methods bound before the attach by RegisterNatives are not told apart by "
                "invocation (their pins stay held): %s",
                why);
        return false;
    }
    /* A Get made as the native function's tail call returns straight to
     * the JVM: the JNI function's own frame (our hook) is then where the
     * invocation returns, at the same moment the Get does. */
    bool tail_call = !in_elf_object((uintptr_t)ret);
    unw_context_t uc;
    unw_cursor_t c;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&c, &uc) != 0)
        return false;
    uintptr_t ip, sp;
    if (!registers(&c, &ip, &sp))
        return false;
    bool reached = false;
    for (int i = 0; i < OWN_FRAMES_MAX + NATIVE_FRAMES_MAX; i++) {
        if (!tail_call && !reached && ip == (uintptr_t)ret)
            reached = true;
        if (!reached && i >= OWN_FRAMES_MAX)
            return false;
        /* Our own frames are built with asynchronous unwind tables
         * (agent/meson.build): asking libunwind to prove it again would
         * cost a lookup with two signal-mask system calls per frame. */
        uintptr_t start = 0;
        bool own = !reached;
        if (!own && (unw_is_signal_frame(&c) != 0 || !has_unwind_info(&c, ip, i > 0, &start)))
            return false;
        if (unw_step(&c) <= 0)
            return false;
        uintptr_t caller_ip, caller_sp;
        if (!registers(&c, &caller_ip, &caller_sp) || caller_sp <= sp)
            return false;
        if (tail_call && caller_ip == (uintptr_t)ret) {
            /* The frame that returns to ret is the hook the Get entered. */
            if (!in_pinwatch(ip))
                return false;
            uintptr_t *slot = pw_return_slot_find(&c, sp, caller_ip, caller_sp);
            if (slot == NULL)
                return false;
            push(t, m, slot, caller_ip);
            return true;
        }
        if (reached) {
            if (pw_is_native_return(caller_ip))
                return false; /* a frame of ours is below: not this invocation's entry */
            if (!in_elf_object(caller_ip)) {
                /* start..: the function the JVM called; its caller is
                 * generated code. */
                if (in_pinwatch(start))
                    return false;
                uintptr_t *slot = pw_return_slot_find(&c, sp, caller_ip, caller_sp);
                if (slot == NULL)
                    return false;
                push(t, m, slot, caller_ip);
                return true;
            }
        }
        ip = caller_ip;
        sp = caller_sp;
    }
    return false;
}
