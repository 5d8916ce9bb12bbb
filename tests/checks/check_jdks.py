#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""jdks: every JDK the suite is built for is there, or says why not.

    check_jdks.py --jdk NAME=HOME ... [--debian NAME ...]

One line per JDK of meson.build's list: its version, or that it is absent
(its tests are registered all the same and each skips with one line, so
.ci/run counts them as not run).  A JDK named by --debian comes from Debian's
archive, which .ci/run installs or unpacks it from: under CI=true its absence
is a failure that names it.  Temurin cannot be had from Debian: its absence
is one line and its tests' skips.  Under CI=true there must also be a JDK 21
or later, or virtual threads are tested nowhere.  Exit 0, or 1 under CI=true
when one of those is missing.
"""

import argparse
import os
import sys

from find_temurin import feature_version

VIRTUAL_THREADS = 21


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--jdk', action='append', default=[], help='NAME=HOME, one per JDK of the suite')
    ap.add_argument('--debian', action='append', default=[], help='a JDK CI gets from Debian')
    args = ap.parse_args()
    ci = bool(os.environ.get('CI'))
    problems = []
    newer = []
    for spec in args.jdk:
        name, home = spec.split('=', 1)
        if home and os.access(os.path.join(home, 'bin', 'java'), os.X_OK):
            feature = feature_version(home)
            print('JDK %s present at %s: JDK %s' % (name, home, feature or '(no release file)'))
            if feature and feature >= VIRTUAL_THREADS:
                newer.append(name)
            continue
        where = ' at ' + home if home else ''
        if name in args.debian:
            line = 'JDK %s absent%s: not run; .ci/run installs or unpacks it from Debian' % (name, where)
            if ci:
                problems.append(line)
            print(('FAIL: ' if ci else '') + line)
        else:
            print('JDK %s absent%s: not run; it cannot be had from Debian\'s archive' % (name, where))
    if newer:
        print('virtual threads: tested on %s' % ', '.join(newer))
    else:
        line = 'virtual threads: no JDK %d or later, so tested nowhere' % VIRTUAL_THREADS
        if ci:
            problems.append(line)
        print(('FAIL: ' if ci else '') + line)
    if problems:
        print('FAIL: CI=true and %d of the above cannot be: %s' % (len(problems), '; '.join(problems)))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
