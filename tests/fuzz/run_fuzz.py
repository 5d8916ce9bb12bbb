#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs one libFuzzer target for a bounded time, as a meson test (suite fuzz).

    run_fuzz.py TARGET_EXE SEED_DIR WORK_DIR SECONDS

New inputs go to WORK_DIR (the checked-in seeds in SEED_DIR stay as they
are); a crash leaves its reproducer in WORK_DIR/crash-* and the test fails
with the target's report (the stack and the property that failed).
Reproduce with: TARGET_EXE WORK_DIR/crash-<hash>
"""
import os
import subprocess
import sys

exe, seeds, work, seconds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
os.makedirs(work, exist_ok=True)
env = dict(os.environ)
env.setdefault('ASAN_OPTIONS', 'detect_leaks=1:abort_on_error=0')
env.setdefault('UBSAN_OPTIONS', 'print_stacktrace=1:halt_on_error=1')
argv = [exe, '-max_total_time=' + seconds, '-timeout=10', '-rss_limit_mb=2048', '-max_len=8192',
        '-print_final_stats=1', '-artifact_prefix=' + work + '/', work, seeds]
print('$ ' + ' '.join(argv), flush=True)
rc = subprocess.call(argv, env=env)
crashes = [f for f in os.listdir(work) if f.startswith(('crash-', 'leak-', 'timeout-', 'oom-'))]
if rc != 0 or crashes:
    print('FAIL: %s exited %d; reproducers: %s' % (os.path.basename(exe), rc,
          ', '.join(os.path.join(work, c) for c in crashes) or 'none'))
    sys.exit(1)
print('PASS: %s ran %s s without a failure' % (os.path.basename(exe), seconds))
