#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The newest Temurin JDK of this machine's architecture under /usr/lib/jvm.

    find_temurin.py [JVM_DIR]

Prints one line, `temurinNN HOME` (NN the JDK's feature version, read from its
`release` file, e.g. `temurin25 /usr/lib/jvm/temurin-25-jdk-amd64`), or
nothing when there is none.  Which Temurin a machine has is not fixed (the
machine's image brings one), so the build looks it up instead of naming it.
"""

import os
import platform
import re
import sys

DEBIAN_ARCH = {'x86_64': 'amd64', 'aarch64': 'arm64'}


def feature_version(home):
    try:
        with open(os.path.join(home, 'release'), encoding='utf-8') as f:
            m = re.search(r'^JAVA_VERSION="(\d+)', f.read(), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


def find(jvm_dir='/usr/lib/jvm'):
    """(name, home) of the newest Temurin in jvm_dir, or None."""
    arch = DEBIAN_ARCH.get(platform.machine(), platform.machine())
    found = []
    try:
        names = os.listdir(jvm_dir)
    except OSError:
        return None
    for name in names:
        home = os.path.join(jvm_dir, name)
        if not re.fullmatch(r'temurin-\d+-jdk-' + re.escape(arch), name) or os.path.islink(home):
            continue
        version = feature_version(home)
        if version and os.access(os.path.join(home, 'bin', 'java'), os.X_OK):
            found.append((version, home))
    if not found:
        return None
    version, home = max(found)
    return 'temurin%d' % version, home


def main():
    hit = find(*sys.argv[1:2])
    if hit:
        print('%s %s' % hit)


if __name__ == '__main__':
    main()
