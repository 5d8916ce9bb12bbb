/* SPDX-License-Identifier: Apache-2.0 */
/* pinwatch attach PID [OPTIONS]: load the agent into a running JVM. */
#include "agent_args.h"
#include "attach.h"
#include "commands.h"
#include "util.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
    "Usage: pinwatch attach PID [OPTIONS]\n"
    "\n"
    "Loads the pinwatch agent into the running HotSpot JVM PID (JDK 17 or later) and\n"
    "prints the agent's return code.  pinwatch speaks the JVM's attach protocol\n"
    "itself: no jcmd, no JDK needed.  It tracks pins taken from then on.\n"
    "\n"
    "A JVM in a container (another mount and PID namespace) is reached through\n"
    "/proc/PID/root; when the agent is not visible at the same path there, it is\n"
    "copied into the container's /tmp.  Run as root, pinwatch takes the JVM's\n"
    "uid and gid, as the JVM accepts only its owner; otherwise you must be the\n"
    "JVM's owner.  JDK 21 and later warn about a dynamically loaded agent unless\n"
    "the JVM runs with -XX:+EnableDynamicAgentLoading.\n"
    "\n"
    "Relative --file and --suppress paths are made absolute here, so that the JVM,\n"
    "whose working directory may differ, writes where you expect.\n"
    "\n";

static const char usage_tail[] =
    "  --timeout SECONDS   wait at most this long for the JVM's attach listener\n"
    "                      (default " PW_DEFAULT_TIMEOUT_TEXT
    ")\n"
    "\n"
    "Return codes of the agent: 0 tracking, 1 bad options (the JVM's stderr has a\n"
    "[pinwatch] ERROR line), 2 the JVM refused JVMTI, 3 help printed.\n"
    "\n"
    "Exit status: 0 when the agent returned 0; 1 when it did not, or the JVM could\n"
    "not be reached; 2 for a bad command line.\n"
    "\n"
    "Example:\n"
    "  pinwatch attach 4242 --format json --file /tmp/pins-%p.jsonl --interval 10\n";


void
pw_usage_attach(FILE *out)
{
    pw_agent_args_usage(out, usage_head, usage_tail);
}

int
pw_cmd_attach(int argc, char **argv)
{
    struct pw_agent_args a;
    int rc = pw_agent_args_parse("attach", argc, argv, ":h", true, pw_usage_attach, &a);
    if (rc >= 0)
        return rc;
    pid_t pid;
    if ((rc = pw_pid_operand("attach", argc, argv, &pid)) >= 0)
        return rc;
    struct pw_target t;
    if (!pw_target_open(pid, &t))
        return PW_EXIT_FAIL;
    char lib[PATH_MAX];
    if (!pw_agent_path(a.agent, lib, sizeof(lib)))
        return PW_EXIT_FAIL;
    if (t.loaded[0] != '\0') {
        pw_error("JVM %ld already runs pinwatch (%s); 'pinwatch dump %ld' asks it for a report", (long)pid,
                 t.loaded, (long)pid);
        return PW_EXIT_FAIL;
    }
    if (!pw_agent_args_absolute("attach", &a, t.root[0] == '\0')) {
        pw_agent_args_free(&a);
        return PW_EXIT_USAGE;
    }
    struct pw_buf opts = {0};
    pw_agent_args_text(&a, &opts);

    rc = PW_EXIT_FAIL;
    char staged[PATH_MAX];
    struct pw_load_result r;
    if (!pw_target_enter(&t))
        goto out;
    bool ok = pw_target_stage_library(&t, lib, staged, sizeof(staged)) &&
              pw_attach_load(&t, staged, opts.data, a.timeout_ms, &r);
    pw_target_leave(&t);
    if (!ok)
        goto out;
    if (r.status != 0) {
        pw_one_line(r.text);
        pw_error("JVM %ld could not load %s: status %d: %s", (long)pid, staged, r.status,
                 r.text[0] ? r.text : "(no message)");
    } else if (!r.has_code) {
        pw_one_line(r.text);
        pw_error("JVM %ld loaded %s but gave no return code: %s", (long)pid, staged, r.text);
    } else if (r.code != 0) {
        pw_error("JVM %ld: the agent returned %d: %s", (long)pid, r.code, pw_code_meaning(r.code));
    } else {
        printf("JVM %ld: agent %s loaded, return code 0: %s\n", (long)pid, staged, pw_code_meaning(0));
        rc = PW_EXIT_OK;
    }
out:
    pw_buf_free(&opts);
    pw_agent_args_free(&a);
    return rc;
}
