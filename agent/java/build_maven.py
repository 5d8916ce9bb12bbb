#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch's Maven artifacts, the one build command (agent/java/meson.build runs it; so does
.ci/release.sh with both self-contained agents):

    build_maven.py --mvn mvn --pom agent/java/pom.xml --version 0.1.0 \
        --native linux-x86_64=build/agent/libpinwatch.so [--native linux-aarch64=...] \
        --build-dir BUILD/maven --central BUILD/maven-central [--local-repo DIR] \
        [--no-install] [--mvn-arg ARG ...] [--stamp OUT [--depfile OUT.d]]

Lays out BUILD-DIR/natives/PLATFORM/libpinwatch.so (pinwatch-agent's ${pinwatch.natives}) and
runs `mvn -B -f POM -Drevision=VERSION -Dpinwatch.natives=... -Dpinwatch.buildDir=BUILD-DIR
clean deploy -DaltDeploymentRepository=central::file://CENTRAL`: every artifact, with its
sources and javadoc jars, is installed into the local repository (--local-repo, else the
user's own, as any `mvn install`) and deployed into CENTRAL, the file repository that stands
for Maven Central, which is emptied first so that it holds this build's artifacts alone.
`clean`: a class or native left from an earlier build never reaches a jar.

--stamp writes the deployed files with their sizes; --depfile lists every file and directory
under the pom's directory, so that ninja runs this again when any Java source, resource or pom
changes, or one is added or removed.  Maven's output goes to BUILD-DIR/mvn.log; its tail is
printed when it fails."""

import argparse
import os
import shutil
import subprocess
import sys
import time


def depfile(path, target, root):
    deps = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith('.') and x != 'target')
        deps.append(d)
        deps += [os.path.join(d, f) for f in sorted(files)]

    def esc(p):
        return p.replace('\\', '\\\\').replace(' ', '\\ ').replace('#', '\\#').replace('$', '$$')
    with open(path, 'w', encoding='utf-8') as f:
        f.write('%s: %s\n' % (esc(target), ' \\\n  '.join(esc(p) for p in deps)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--mvn', required=True)
    p.add_argument('--pom', required=True)
    p.add_argument('--version', required=True)
    p.add_argument('--native', action='append', default=[], metavar='PLATFORM=PATH')
    p.add_argument('--build-dir', required=True)
    p.add_argument('--central', required=True)
    p.add_argument('--local-repo', default='', help="empty: the user's own local repository")
    p.add_argument('--no-install', action='store_true',
                   help='deploy only: the local repository gets nothing (a test\'s variant build)')
    p.add_argument('--mvn-arg', action='append', default=[], help='one more argument for mvn')
    p.add_argument('--stamp')
    p.add_argument('--depfile')
    args = p.parse_args()

    t0 = time.monotonic()
    build = os.path.abspath(args.build_dir)
    central = os.path.abspath(args.central)
    natives = os.path.join(build, 'natives')
    shutil.rmtree(natives, ignore_errors=True)
    for spec in args.native:
        platform, _, path = spec.partition('=')
        if platform not in ('linux-x86_64', 'linux-aarch64') or not path:
            p.error('--native %r: expected linux-x86_64=PATH or linux-aarch64=PATH' % spec)
        os.makedirs(os.path.join(natives, platform))
        shutil.copyfile(path, os.path.join(natives, platform, 'libpinwatch.so'))
    shutil.rmtree(central, ignore_errors=True)
    os.makedirs(central)

    cmd = [args.mvn, '-B', '-f', os.path.abspath(args.pom), '-Drevision=' + args.version,
           '-Dpinwatch.natives=' + natives, '-Dpinwatch.buildDir=' + build]
    if args.local_repo:
        cmd.append('-Dmaven.repo.local=' + os.path.abspath(args.local_repo))
    if args.no_install:
        cmd.append('-Dmaven.install.skip=true')
    cmd += args.mvn_arg
    cmd += ['clean', 'deploy', '-DaltDeploymentRepository=central::file://' + central]
    log = os.path.join(build, 'mvn.log')
    with open(log, 'w', encoding='utf-8') as out:
        out.write('$ %s\n' % ' '.join(cmd))
        out.flush()
        rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
    if rc != 0:
        with open(log, encoding='utf-8', errors='replace') as f:
            tail = f.read().splitlines()[-60:]
        sys.stderr.write('\n'.join(tail) + '\nbuild_maven.py: mvn failed (%d); all of its output: %s\n' % (rc, log))
        return 1

    deployed = []
    for d, _, files in os.walk(central):
        for f in files:
            if f.endswith(('.jar', '.pom')):
                path = os.path.join(d, f)
                deployed.append((os.path.relpath(path, central), os.path.getsize(path)))
    deployed.sort()
    if args.stamp:
        with open(args.stamp, 'w', encoding='utf-8') as f:
            f.write('# pinwatch %s in %s (natives: %s), built in %.0f s\n' % (
                args.version, central, ', '.join(s.partition('=')[0] for s in args.native) or 'none',
                time.monotonic() - t0))
            f.writelines('%10d  %s\n' % (size, rel) for rel, size in deployed)
        if args.depfile:
            depfile(args.depfile, args.stamp, os.path.dirname(os.path.abspath(args.pom)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
