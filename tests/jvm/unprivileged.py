# SPDX-License-Identifier: Apache-2.0
"""Running a program as another user (nobody) from tests run as root: the
command line, and the directories on the way to what it needs made
enterable for the while.  Used by tests/cli/clitest.py (attach-as-root and
the commands run as nobody) and tests/jvm/findings.py
(deleted-library-unprivileged).  Standard library only."""

import contextlib
import fcntl
import os
import shutil

NOBODY = 65534


def as_nobody(argv):
    """argv run as nobody (uid and gid 65534) by setpriv; run it inside
    `with traversable(...)` when it needs files under the checkout."""
    setpriv = shutil.which('setpriv', path='/usr/bin:/bin') or '/usr/bin/setpriv'
    return [setpriv, '--reuid=%d' % NOBODY, '--regid=%d' % NOBODY, '--clear-groups', '--'] + list(argv)


@contextlib.contextmanager
def traversable(needs):
    """While the block runs, other users may enter every directory on the
    way to the paths in NEEDS (a checkout under root's 0700 home, say, where
    the Debian 13 JDKs and the arm64 tree are): o+x, not o+r, and the old
    modes come back when the block ends.  Copies would not do: those JDKs
    name their loader by its absolute path.  A private mount namespace
    would change nothing on the machine, but cannot be had in a chroot such
    as ../shared/fresh/check-fresh's.  One test at a time holds the grant
    (an exclusive lock), so that none restores a mode another relies on."""
    with open('/tmp/pinwatch-tests-traversable.lock', 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        modes = {}
        try:
            for need in needs:
                while True:
                    found = blocked_ancestor(need)
                    if not found:
                        break
                    modes[found[0]] = os.stat(found[0]).st_mode & 0o7777
                    os.chmod(found[0], modes[found[0]] | 0o001)
            yield
        finally:
            for path, mode in reversed(list(modes.items())):
                os.chmod(path, mode)


def blocked_ancestor(path):
    """(D, C): the first directory D on PATH's way down from / that other
    users cannot enter, and its child C on that way; None when there is none."""
    path = os.path.realpath(path)
    here = '/'
    for part in [p for p in path.split('/') if p]:
        if not os.stat(here).st_mode & 0o001:
            return here, os.path.join(here, part)
        here = os.path.join(here, part)
    return None
