#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check-maven: Maven's build of the Java artifacts and Meson's agree (agent/java/pom.xml).

    check_maven.py SOURCE_ROOT

Maven builds the published artifacts and Meson builds the jars the agent's own tests use, from
the same files; nothing but this check keeps the two descriptions in step:
  1. the parent pom's default ${revision} is meson.build's project version (the version's one
     source: Meson passes it to Maven, the default is for a bare `mvn` run);
  2. every module's pom takes its sources from the folder its meson.build compiles (`src`),
     and every .java file under it is in meson.build's list and the other way round;
  3. the javac flags: `--release N` and the lint flags of each meson.build's java_args are the
     parent's maven.compiler.release and the compiler plugin's compilerArgs;
  4. the design's artifacts (pinwatch-api, pinwatch-agent, pinwatch-junit; and
     pinwatch-maven-plugin once its directory is there) are modules of the parent with those
     artifactIds, and every agent/java/*/pom.xml is a module.
Exit 0, or 1 naming each difference."""

import os
import re
import sys
import xml.etree.ElementTree as ET

NS = {'m': 'http://maven.apache.org/POM/4.0.0'}
# directory under agent/java: artifactId (issue 29's design).  maven-plugin is required once
# its directory exists (it is built on its own branch).
ARTIFACTS = {'api': 'pinwatch-api', 'agent': 'pinwatch-agent', 'junit': 'pinwatch-junit',
             'maven-plugin': 'pinwatch-maven-plugin'}
REQUIRED = ('api', 'agent', 'junit')
LINT = re.compile(r"'(-Xlint[^']*|-Xdoclint[^']*|-Werror)'")


def text(el, path):
    found = el.find(path, NS)
    return found.text.strip() if found is not None and found.text else None


def compiler_args(pom):
    for plugin in pom.iterfind('.//m:plugin', NS):
        if text(plugin, 'm:artifactId') == 'maven-compiler-plugin':
            args = plugin.find('m:configuration/m:compilerArgs', NS)
            if args is not None:
                return [a.text.strip() for a in args]
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
    java = os.path.join(root, 'agent', 'java')
    bad = []
    with open(os.path.join(root, 'meson.build'), encoding='utf-8') as f:
        version = re.search(r"project\([^)]*?version:\s*'([^']+)'", f.read(), re.S).group(1)
    parent = ET.parse(os.path.join(java, 'pom.xml')).getroot()
    revision = text(parent, 'm:properties/m:revision')
    if revision != version:
        bad.append('agent/java/pom.xml: <revision> default %s, meson.build\'s version %s' % (revision, version))
    release = text(parent, 'm:properties/m:maven.compiler.release')
    lint = compiler_args(parent)
    parent_src = text(parent, 'm:build/m:sourceDirectory')

    modules = [m.text.strip() for m in parent.iterfind('m:modules/m:module', NS)]
    with_pom = sorted(d for d in os.listdir(java) if os.path.isfile(os.path.join(java, d, 'pom.xml')))
    for d in sorted(set(with_pom) - set(modules)):
        bad.append('agent/java/%s/pom.xml is not a <module> of agent/java/pom.xml' % d)
    for d in REQUIRED + tuple(d for d in ARTIFACTS if d not in REQUIRED and os.path.isdir(os.path.join(java, d))):
        if d not in modules:
            bad.append('agent/java/pom.xml: no <module>%s</module> (%s)' % (d, ARTIFACTS[d]))
    checked = []
    for d in modules:
        pom_path = os.path.join(java, d, 'pom.xml')
        if not os.path.isfile(pom_path):
            bad.append('agent/java/pom.xml: module %s has no pom.xml' % d)
            continue
        pom = ET.parse(pom_path).getroot()
        artifact = text(pom, 'm:artifactId')
        if d in ARTIFACTS and artifact != ARTIFACTS[d]:
            bad.append('agent/java/%s/pom.xml: artifactId %s, the design\'s is %s' % (d, artifact, ARTIFACTS[d]))
        src = text(pom, 'm:build/m:sourceDirectory') or parent_src
        tree = set()
        for top, _, files in os.walk(os.path.join(java, d, src or 'src')):
            tree |= {os.path.relpath(os.path.join(top, f), os.path.join(java, d))
                     for f in files if f.endswith('.java')}
        if not tree:
            bad.append('agent/java/%s: no .java file under its pom\'s sourceDirectory %s' % (d, src))
        meson_build = os.path.join(java, d, 'meson.build')
        if not os.path.isfile(meson_build):
            continue            # built by Maven alone (pinwatch-agent, the plugin)
        with open(meson_build, encoding='utf-8') as f:
            mb = f.read()
        listed = set(re.findall(r"'([^']+\.java)'", mb))
        if not listed:
            continue
        checked.append(d)
        for p in sorted(listed - tree):
            bad.append('agent/java/%s/meson.build compiles %s, which is not under the pom\'s sources (%s)' % (d, p, src))
        for p in sorted(tree - listed):
            bad.append('agent/java/%s/%s is compiled by Maven but not listed in its meson.build' % (d, p))
        inc = re.findall(r"include_directories\('([^']+)'\)", mb)
        if inc and inc != [src]:
            bad.append('agent/java/%s/meson.build: include_directories %s, the pom\'s sourceDirectory %s' % (d, inc, src))
        # The flags: java_args of jar(), or the javac command of a build script beside it.
        for script in sorted(os.listdir(os.path.join(java, d))):
            if script.endswith('.py'):
                with open(os.path.join(java, d, script), encoding='utf-8') as f:
                    body = f.read()
                if "'--release'" in body:
                    mb += '\njava_args: ' + body[body.find("'--release'"):][:400]
        m = re.search(r"'--release',\s*'(\d+)'", mb)
        if m and m.group(1) != release:
            bad.append('agent/java/%s/meson.build: --release %s, the poms\' maven.compiler.release %s'
                       % (d, m.group(1), release))
        flags = LINT.findall(mb[mb.find('java_args'):]) if 'java_args' in mb else []
        # jar()'s list, or a script's: the same flags either way, once each.
        flags = list(dict.fromkeys(flags))
        pom_lint = compiler_args(pom) or lint
        if flags and flags != pom_lint:
            bad.append('agent/java/%s/meson.build: javac flags %s, the poms\' compilerArgs %s' % (d, flags, pom_lint))
    if not checked:
        bad.append('no module\'s meson.build lists its Java sources: nothing was compared')
    for b in bad:
        print('FAIL: ' + b)
    if not bad:
        print('PASS: version %s; modules %s; sources and javac flags of %s as in their meson.build (--release %s, %s)'
              % (version, ', '.join(modules), ', '.join(checked), release, ' '.join(lint or [])))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
