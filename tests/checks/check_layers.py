#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check-layers: every agent source uses only the layers its own layer may use.

    check_layers.py AGENT_DIR

Includes name their layer ("state/pin_table.h"), so the check is a lookup:
the first path element of every quoted #include must be the file's own layer
or one in USES[layer].  `report` and `intercept` are siblings above
`tracking`: neither may use the other.  The command (cli/) may use `base` and
nothing else of the agent.  A file that needs something from a layer it may
not use is code in the wrong place: move the code down, or pass what it
needs in from above (a callback, an address set at start).  Exit 1 names
every offending #include.
"""

import os
import re
import sys

# Lowest first: agent/meson.build lists the sources in this order.
LAYERS = ['base', 'jvm', 'state', 'tracking', 'intercept', 'report', 'entry']
USES = {
    'base': [],
    'jvm': ['base'],
    'state': ['jvm', 'base'],
    'tracking': ['state', 'jvm', 'base'],
    'intercept': ['tracking', 'state', 'jvm', 'base'],
    'report': ['tracking', 'state', 'jvm', 'base'],
    'entry': ['report', 'intercept', 'tracking', 'state', 'jvm', 'base'],
    'cli': ['base'],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sources(folder):
    for dirpath, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith(('.c', '.h', '.S')):
                yield os.path.join(dirpath, name)


def check_file(agent, layer, path, problems):
    rel = os.path.relpath(path, agent)
    with open(path, encoding='utf-8') as src:
        for lineno, line in enumerate(src, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            header = m.group(1)
            first = header.split('/')[0]
            if first in LAYERS:
                if not os.path.exists(os.path.join(agent, header)):
                    problems.append('%s:%d includes "%s", which does not exist' % (rel, lineno, header))
                elif first != layer and first not in USES[layer]:
                    problems.append('%s:%d includes %s: %s may not use %s' % (rel, lineno, header, layer, first))
            elif layer != 'cli' and '/' not in header:
                # the command keeps its own headers beside its sources; in a
                # layer every quoted include names the layer it comes from
                problems.append('%s:%d includes "%s" without its layer' % (rel, lineno, header))


def main():
    agent = sys.argv[1]
    problems, files = [], 0
    for layer in LAYERS + ['cli']:
        folder = os.path.join(agent, layer)
        for path in sources(folder):
            files += 1
            check_file(agent, layer, path, problems)
    for p in problems:
        print(p)
    if files == 0:
        print('no sources found under %s' % agent)
        return 1
    print('%d files, %d includes outside their layer\'s uses' % (files, len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
