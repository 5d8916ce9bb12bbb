#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A self-contained build's agent and command need nothing but glibc, and no
glibc newer than 2.28 (RHEL 8, Ubuntu 20.04, Debian 10): their NEEDED entries
(objdump -p) are glibc's own libraries only, and no dynamic symbol (objdump -T)
asks for a GLIBC_ version above 2.28.

  check_self_contained.py OBJDUMP FILE...

Prints, per file, the NEEDED list and the highest GLIBC version found."""

import re
import subprocess
import sys

GLIBC_OWN = {
    'libc.so.6', 'libm.so.6', 'libdl.so.2', 'libpthread.so.0', 'librt.so.1',
    'ld-linux-x86-64.so.2', 'ld-linux-aarch64.so.1',
}
NEWEST = (2, 28)


def objdump(tool, flag, path):
    out = subprocess.run([tool, flag, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    if out.returncode != 0:
        raise RuntimeError('%s %s %s exited %d: %s' % (tool, flag, path, out.returncode,
                                                      out.stderr.strip()))
    return out.stdout


def check(tool, path):
    needed = re.findall(r'^\s*NEEDED\s+(\S+)', objdump(tool, '-p', path), re.M)
    # A symbol's version is the last GLIBC_x.y on its line ("(GLIBC_2.2.5) memcpy").
    versions = {}
    for line in objdump(tool, '-T', path).splitlines():
        m = re.search(r'\bGLIBC_(\d+)\.(\d+)(?:\.(\d+))?\)?\s+(\S+)\s*$', line)
        if m:
            v = (int(m.group(1)), int(m.group(2)))
            versions.setdefault(v, []).append(m.group(4))
    highest = max(versions) if versions else None
    print('%s: NEEDED %s; highest GLIBC_%s' % (path, ' '.join(needed) or '(none)',
                                             '.'.join(map(str, highest)) if highest else '(none)'))
    ok = True
    foreign = [n for n in needed if n not in GLIBC_OWN]
    if foreign:
        print('FAIL: %s needs libraries that are not glibc\'s: %s' % (path, ' '.join(foreign)))
        ok = False
    if not needed:
        print('FAIL: %s has no NEEDED entry at all: not a dynamically linked object?' % path)
        ok = False
    newer = sorted(v for v in versions if v > NEWEST)
    for v in newer:
        print('FAIL: %s asks for GLIBC_%d.%d: %s' % (path, v[0], v[1], ' '.join(sorted(versions[v]))))
        ok = False
    return ok


def main():
    if len(sys.argv) < 3:
        print('usage: check_self_contained.py OBJDUMP FILE...')
        return 2
    ok = True
    for path in sys.argv[2:]:
        ok = check(sys.argv[1], path) and ok
    print('PASS' if ok else 'FAIL')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
