#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check-layers: every agent source uses only the layers its own layer may use.

    check_layers.py AGENT_DIR [OBJECT_DIR [--compiler ID]]

Four checks, each naming every offence; exit 1 if any:
  includes  the first path element of every quoted #include is the file's
            own layer or one in USES[layer] (sources are read);
  externs   no .c file declares an extern: a shared variable is declared in
            its owner's header, where the include check sees it;
  symbols   with OBJECT_DIR (the agent's build directory), every undefined
            pw_ symbol of a layer's objects is defined in its own layer or
            one it may use; this sees what includes cannot (assembler calls,
            a prototype written by hand).  An nm that cannot read the objects
            is a failure, except for a clang build (--compiler clang), whose
            LTO objects are bitcode gcc's nm cannot read: the gcc build
            checks the symbols;
  map       agent/README.md names every source of every layer and of the
            command, so the map of who owns what cannot go stale silently;
            and agent/meson.build links each layer's library to exactly the
            layers USES allows (agent_layer_uses, closed transitively).

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
import shutil
import subprocess
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
EXTERN = re.compile(r'^\s*(PW_HIDDEN\s+)?extern\b')
ARCH_SUFFIX = re.compile(r'_(x86_64|aarch64)$')


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


def check_externs(agent, layer, path, problems):
    if not path.endswith('.c'):
        return
    with open(path, encoding='utf-8') as src:
        for lineno, line in enumerate(src, 1):
            if EXTERN.match(line):
                problems.append('%s:%d declares an extern: declare it in its owner\'s header'
                                % (os.path.relpath(path, agent), lineno))


def nm(tool, args, obj):
    out = subprocess.run([tool] + args + [obj], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError('%s %s: %s' % (tool, obj, out.stderr.strip()))
    return out.stdout.split('\n')


def check_symbols(objdir, problems):
    """Meson names an object <layer>_<file>.o after its source's path under
    agent/, whichever library it belongs to."""
    tool = shutil.which('gcc-nm') or shutil.which('nm')
    if tool is None:
        raise RuntimeError('neither gcc-nm nor nm is installed (Debian package binutils)')
    objects = {}
    for dirpath, _, names in os.walk(objdir):
        if not dirpath.endswith('.p'):
            continue
        for name in names:
            layer = name.split('_')[0]
            if name.endswith('.o') and layer in LAYERS:
                objects.setdefault(name, os.path.join(dirpath, name))
    defined = {}
    for name, obj in objects.items():
        for line in nm(tool, ['--defined-only'], obj):
            parts = line.split()
            if len(parts) == 3 and parts[2].startswith('pw_') and parts[1].isupper():
                defined[parts[2]] = name.split('_')[0]
    uses = 0
    for name, obj in sorted(objects.items()):
        layer = name.split('_')[0]
        for line in nm(tool, ['-u'], obj):
            parts = line.split()
            if len(parts) != 2 or parts[1] not in defined:
                continue
            owner = defined[parts[1]]
            uses += 1
            if owner != layer and owner not in USES[layer]:
                problems.append('%s uses %s of %s: %s may not use %s' % (name[:-2], parts[1], owner, layer, owner))
    return len(objects), uses


def check_map(agent, problems):
    with open(os.path.join(agent, 'README.md'), encoding='utf-8') as f:
        text = f.read()
    # The first cell of each table row names files: `state/pin_table.c`,
    # `pin_table.h`; a name without a folder is in the row's first folder.
    named = set()
    for line in text.split('\n'):
        if not line.startswith('|'):
            continue
        folder = ''
        for token in re.findall(r'`([^`]+)`', line.split('|')[1]):
            if '/' in token:
                folder = token.rsplit('/', 1)[0] + '/'
                named.add(token)
            else:
                named.add(folder + token)
    for layer in LAYERS + ['cli']:
        for path in sources(os.path.join(agent, layer)):
            rel = os.path.relpath(path, agent)
            stem, ext = os.path.splitext(rel)
            stem = ARCH_SUFFIX.sub('_<arch>', stem)
            if not ({stem + ext, stem + '.*', stem + '.c', stem + '.h', stem + '.S'} & named):
                problems.append('%s is not in agent/README.md: say what it owns' % rel)


def check_build_map(agent, problems):
    """agent/meson.build links each layer's library against the layers it
    uses directly (agent_layer_uses); what that reaches must be USES."""
    with open(os.path.join(agent, 'meson.build'), encoding='utf-8') as f:
        text = f.read()
    m = re.search(r'agent_layer_uses\s*=\s*\{(.*?)\n\}', text, re.S)
    if m is None:
        problems.append('agent/meson.build: no agent_layer_uses map')
        return
    direct = {k: re.findall(r"'(\w+)'", v) for k, v in re.findall(r"'(\w+)'\s*:\s*\[([^\]]*)\]", m.group(1))}

    def reach(layer):
        seen, todo = set(), list(direct.get(layer, []))
        while todo:
            below = todo.pop()
            if below not in seen:
                seen.add(below)
                todo += direct.get(below, [])
        return seen

    for layer in LAYERS:
        if layer not in direct:
            problems.append('agent/meson.build: agent_layer_uses has no %s' % layer)
        elif reach(layer) != set(USES[layer]):
            problems.append('agent/meson.build: %s links %s, but may use %s (USES here)'
                            % (layer, sorted(reach(layer)), sorted(USES[layer])))


def main():
    args = sys.argv[1:]
    compiler = None
    if '--compiler' in args:
        at = args.index('--compiler')
        compiler = args[at + 1]
        del args[at:at + 2]
    agent = args[0]
    objdir = args[1] if len(args) > 1 else None
    includes, externs, symbols, mapped = [], [], [], []
    files = 0
    for layer in LAYERS + ['cli']:
        folder = os.path.join(agent, layer)
        for path in sources(folder):
            files += 1
            check_file(agent, layer, path, includes)
            check_externs(agent, layer, path, externs)
    if files == 0:
        print('no sources found under %s' % agent)
        return 1
    check_map(agent, mapped)
    check_build_map(agent, mapped)
    summary = '%d files: %d includes outside their layer\'s uses, %d externs in .c files, %d map problems' % (
        files, len(includes), len(externs), len(mapped))
    if objdir:
        try:
            nobjects, uses = check_symbols(objdir, symbols)
        except RuntimeError as e:
            if compiler != 'clang':
                print('symbols: nm failed, so the layers of the built objects are unchecked: %s' % e)
                return 1
            # clang's LTO objects are bitcode this nm cannot read: the
            # includes still hold the layers here, and the gcc build checks
            # the symbols.
            print('symbols not checked (clang build): %s' % e)
            nobjects = -1
        if nobjects == 0:
            print('no agent objects under %s' % objdir)
            return 1
        if nobjects > 0:
            summary += '; %d objects, %d uses across files, %d outside their layer\'s uses' % (
                nobjects, uses, len(symbols))
    problems = includes + externs + symbols + mapped
    for p in problems:
        print(p)
    print(summary)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
