#!/usr/bin/env python3
"""check-layers: every agent source includes only headers of its own layer or
of a layer below it.

    check_layers.py AGENT_DIR

The layers, lowest first, are the directories of agent/ (agent/meson.build
lists them in the same order).  A file that needs something from a higher
layer is code in the wrong place: move the code down, or pass what it needs
in from above (a callback, an address set at start).  Exit 1 names every
offending #include.
"""

import os
import re
import sys

LAYERS = ['base', 'jvm', 'state', 'tracking', 'intercept', 'report', 'entry']
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main():
    agent = sys.argv[1]
    owner = {}
    for layer in LAYERS:
        for name in os.listdir(os.path.join(agent, layer)):
            if name.endswith('.h'):
                if name in owner:
                    print('%s/%s and %s/%s: one header name in two layers' % (owner[name], name, layer, name))
                    return 1
                owner[name] = layer
    problems, files = [], 0
    for rank, layer in enumerate(LAYERS):
        folder = os.path.join(agent, layer)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(('.c', '.h', '.S')):
                continue
            files += 1
            with open(os.path.join(folder, name), encoding='utf-8') as src:
                for lineno, line in enumerate(src, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    header = os.path.basename(m.group(1))
                    if header not in owner:
                        continue  # the public header, or a system one
                    if LAYERS.index(owner[header]) > rank:
                        problems.append('%s/%s:%d includes %s/%s, a higher layer'
                                        % (layer, name, lineno, owner[header], header))
    for p in problems:
        print(p)
    if files == 0:
        print('no sources found under %s' % agent)
        return 1
    print('%d files, %d upward includes' % (files, len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
