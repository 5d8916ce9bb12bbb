#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check-single-definitions: each fact the hot path shares with its slow
path is spelled in one file, even where a fast path is inlined elsewhere.

    check_single_definitions.py AGENT_DIR

A fast path inlined into a wrapper (a static inline in a tracking header)
may call what its slow path uses, never re-derive it: if the inlined copy of
the site-cache probe or of the local-count word drifted from the
out-of-line one, every fast path would silently miss and fall to the slow
path, and no count would be wrong to tell.  So each fact below may be
written only in the files named beside it; exit 1 names every other place.
"""

import os
import re
import sys

# (what, pattern, files allowed to spell it)
FACTS = [
    ('the site-cache probe (pw_site_cache_slot)', r'PW_SITE_CACHE_BITS|sites\.cache\[',
     {'state/thread_state.h'}),
    ('the frame\'s local-count word (pw_frame_locals, pw_frame_set_locals)', r'(?<!refs)(->|\.)locals\b',
     {'tracking/refs.h'}),
    ('the local-count word\'s masks', r'0x7fffffff|#\s*define\s+PW_LOCALS_',
     {'tracking/refs.h'}),
    ('the hash multipliers', r'(?i)0x9E3779B97F4A7C15|0xC2B2AE3D27D4EB4F|0x165667B19E3779F9',
     {'base/pinwatch.h'}),
    ('a JNI function-table slot macro', r'#\s*define\s+\w*SLOT\(', {'jvm/jni_table.h'}),
    ('the number of JNI table slots', r'\b236\b', {'jvm/jni_table.h', 'jvm/jni_table.c'}),
    ('which acquire functions open a critical region (pw_fn_is_critical)',
     r'[=!]=\s*PW_FN_(ARRAY|STRING)_CRITICAL\b', {'base/pinwatch.h'}),
    ('the JNI function names (pw_jni_function_names)', r'"GetVersion"', {'jvm/jni_table.c'}),
]
LAYERS = ['base', 'jvm', 'state', 'tracking', 'intercept', 'report', 'entry']


def code_lines(text):
    """The text with comments blanked, line numbers kept."""
    text = re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)
    return [re.sub(r'//.*', '', line) for line in text.split('\n')]


def main():
    agent = sys.argv[1]
    problems, files = [], 0
    for layer in LAYERS:
        for name in sorted(os.listdir(os.path.join(agent, layer))):
            if not name.endswith(('.c', '.h', '.S')):
                continue
            rel = layer + '/' + name
            files += 1
            with open(os.path.join(agent, rel), encoding='utf-8') as f:
                lines = code_lines(f.read())
            for what, pattern, allowed in FACTS:
                if rel in allowed:
                    continue
                for n, line in enumerate(lines, 1):
                    if re.search(pattern, line):
                        problems.append('%s:%d spells %s, which belongs to %s'
                                        % (rel, n, what, ', '.join(sorted(allowed))))
    for what, pattern, allowed in FACTS:
        for rel in allowed:
            with open(os.path.join(agent, rel), encoding='utf-8') as f:
                if not any(re.search(pattern, line) for line in code_lines(f.read())):
                    problems.append('%s no longer spells %s: update this check' % (rel, what))
    for p in problems:
        print(p)
    print('%d files, %d facts, %d spelled outside their file' % (files, len(FACTS), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
