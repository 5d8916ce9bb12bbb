#!/usr/bin/env python3
"""Instructions per long[4] Get/Release pair through pinwatch's hooks.

    python3 tests/bench/count_instructions.py build/tests/bench/pair_instructions
    meson compile -C build bench-instructions

Runs pair_instructions (no JVM) under valgrind's callgrind for two loop
lengths and takes the difference, so start-up and exit cancel out; the same
for the loop without hooks.  A count is the same on a busy machine as on an
idle one, which the benchmark's nanoseconds are not.  Prints one line
"PWINSTR {json}".  Use the gcc build: valgrind 3.19 cannot read the DWARF 5
that clang writes.
"""

import json
import re
import shutil
import subprocess
import sys

SHORT, LONG = 100_000, 300_000


def instructions(driver, n, bare):
    argv = ['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null', driver, str(n)]
    if bare:
        argv.append('bare')
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode != 0:
        raise SystemExit('count_instructions: %s exited with %d:\n%s'
                         % (' '.join(argv), proc.returncode, '\n'.join(proc.stderr.splitlines()[-8:])))
    m = re.search(r'refs:\s+([\d,]+)', proc.stderr)
    if m is None:
        raise SystemExit('count_instructions: no instruction count from callgrind:\n' + proc.stderr)
    return int(m.group(1).replace(',', ''))


def per_pair(driver, bare):
    return (instructions(driver, LONG, bare) - instructions(driver, SHORT, bare)) / (LONG - SHORT)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    if shutil.which('valgrind') is None:
        raise SystemExit('count_instructions: valgrind is not installed (apt-get install valgrind)')
    hooked = per_pair(sys.argv[1], False)
    bare = per_pair(sys.argv[1], True)
    print('long[4] Get+Release pair: %.1f instructions with pinwatch, %.1f bare (+%.1f)'
          % (hooked, bare, hooked - bare))
    print('PWINSTR ' + json.dumps({'hooked': hooked, 'bare': bare}))


if __name__ == '__main__':
    main()
