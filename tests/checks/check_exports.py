#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The agent exports exactly the three JVMTI entry points and JNI_OnLoad (System.load), nothing else
(hidden visibility must cover everything else, or agent symbols could bind
to, or be bound by, symbols of the JVM and of other JNI libraries)."""

import shutil
import subprocess
import sys

EXPECTED = {'Agent_OnLoad', 'Agent_OnAttach', 'Agent_OnUnload', 'JNI_OnLoad'}


def main():
    if len(sys.argv) != 2:
        print('usage: check_exports.py LIBRARY')
        return 2
    nm = shutil.which('nm')
    if nm is None:
        print('FAIL: nm (binutils) not found on PATH')
        return 1
    out = subprocess.run([nm, '-D', '--defined-only', sys.argv[1]], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    if out.returncode != 0:
        print('FAIL: nm exited %d: %s' % (out.returncode, out.stderr.strip()))
        return 1
    # "ADDRESS TYPE NAME[@VERSION]"; drop symbol versions.
    exported = {line.split()[-1].split('@')[0] for line in out.stdout.splitlines() if line.strip()}
    if exported != EXPECTED:
        print('FAIL: %s exports the wrong set of symbols' % sys.argv[1])
        print('  unexpected: %s' % (sorted(exported - EXPECTED) or 'none'))
        print('  missing:    %s' % (sorted(EXPECTED - exported) or 'none'))
        return 1
    print('PASS: exports exactly %s' % ', '.join(sorted(EXPECTED)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
