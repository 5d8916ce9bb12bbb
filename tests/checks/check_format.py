#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check-format: the agent's C sources are as .clang-format lays them out.

    check_format.py SOURCE_ROOT

Every agent/**/*.c and *.h but the assembler macro headers
(agent/intercept/asm_macros_*.h) must come out of `clang-format
--style=file` unchanged.  Exit 1 names each file that would change and how
many lines; 77 (skip) when clang-format is not installed.
"""

import difflib
import os
import shutil
import subprocess
import sys


def main():
    root = sys.argv[1]
    tool = shutil.which('clang-format')
    if tool is None:
        # .ci/run installs it: under CI its absence is a broken set-up, not a skip.
        print('%s: clang-format is not installed' % ('FAIL' if os.environ.get('CI') else 'SKIP'))
        return 1 if os.environ.get('CI') else 77
    checked, bad = 0, []
    for folder, _, names in sorted(os.walk(os.path.join(root, 'agent'))):
        for name in sorted(names):
            if not name.endswith(('.c', '.h')) or name.startswith('asm_macros'):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding='utf-8') as f:
                text = f.read()
            out = subprocess.run([tool, '--style=file', path], capture_output=True, text=True, check=True,
                                 cwd=root).stdout
            checked += 1
            if out != text:
                changed = sum(1 for l in difflib.unified_diff(text.splitlines(), out.splitlines(), lineterm='')
                              if l.startswith('+') and not l.startswith('+++'))
                bad.append('%s: %d lines would change' % (os.path.relpath(path, root), changed))
    for b in bad:
        print(b)
    print('%d files checked, %d not formatted (run clang-format --style=file -i on them)' % (checked, len(bad)))
    if checked == 0:
        return 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
