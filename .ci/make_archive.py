#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One release archive from a self-contained build directory (called by .ci/release.sh):

  make_archive.py --build DIR --arch x64|arm64 --strip STRIP --source SRC --epoch SECONDS --out DIR

writes OUT/pinwatch-VERSION-linux-ARCH.tar.gz holding, under pinwatch-VERSION-linux-ARCH/:
bin/pinwatch, lib/libpinwatch.so, lib/pinwatch-api.jar (and lib/pinwatch-junit.jar when the
build has it), LICENSE and README.md.  Byte for byte the same for the same commit: every
time stamp is EPOCH (the commit's), entries are sorted, owner and group are 0 with no names,
modes are 0755 or 0644, the gzip header has no name and no time, the jars are written again
with EPOCH as the time of every entry, and the ELF files lose their debug sections (the build
maps its own paths away, so nothing of where it ran remains)."""

import argparse
import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

README = """pinwatch {version} for Linux {arch_name} (glibc 2.28 or later; JDK 11 or later)

  bin/pinwatch          the command: run, attach, dump, report, diff (bin/pinwatch --help)
  lib/libpinwatch.so    the agent: needs nothing but glibc
  lib/pinwatch-api.jar  the Java API (io.pinwatch.Pinwatch){junit}

Start a JVM under pinwatch:

  java -agentpath:$PWD/lib/libpinwatch.so -jar app.jar
  bin/pinwatch run -- java -jar app.jar

or attach to a running one: bin/pinwatch attach PID.  bin/pinwatch finds lib/libpinwatch.so
next to itself wherever this directory is unpacked.  The options, the report formats and
everything else: README.md of pinwatch's source tree.
"""


def normalised_jar(path, epoch):
    """The jar's entries, in their order, written again with one time stamp."""
    out = io.BytesIO()
    stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip times start in 1980
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            entry = zipfile.ZipInfo(info.filename, stamp)
            entry.external_attr = (0o40755 if info.filename.endswith('/') else 0o100644) << 16
            entry.compress_type = zipfile.ZIP_STORED if info.filename.endswith('/') else zipfile.ZIP_DEFLATED
            entry.create_system = 3
            dst.writestr(entry, src.read(info.filename))
    return out.getvalue()


def stripped(strip, path):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(path))
        shutil.copyfile(path, copy)
        subprocess.run([strip, '--strip-debug', '--remove-section=.comment', copy], check=True)
        with open(copy, 'rb') as f:
            return f.read()


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--build', required=True)
    p.add_argument('--arch', required=True, choices=('x64', 'arm64'))
    p.add_argument('--strip', required=True)
    p.add_argument('--source', required=True)
    p.add_argument('--epoch', required=True, type=int)
    p.add_argument('--version', required=True)
    p.add_argument('--out', required=True)
    a = p.parse_args()

    agent = os.path.join(a.build, 'agent', 'libpinwatch.so')
    cli = os.path.join(a.build, 'agent', 'cli', 'pinwatch')
    api = os.path.join(a.build, 'agent', 'java', 'api', 'pinwatch-api.jar')
    junit = os.path.join(a.build, 'agent', 'java', 'junit', 'pinwatch-junit.jar')
    for need in (agent, cli, api):
        if not os.path.exists(need):
            print('make_archive.py: %s is not built' % need, file=sys.stderr)
            return 1
    top = 'pinwatch-%s-linux-%s' % (a.version, a.arch)
    files = {
        'bin/pinwatch': (stripped(a.strip, cli), 0o755),
        'lib/libpinwatch.so': (stripped(a.strip, agent), 0o755),
        'lib/pinwatch-api.jar': (normalised_jar(api, a.epoch), 0o644),
    }
    if os.path.exists(junit):
        files['lib/pinwatch-junit.jar'] = (normalised_jar(junit, a.epoch), 0o644)
    with open(os.path.join(a.source, 'LICENSE'), 'rb') as f:
        files['LICENSE'] = (f.read(), 0o644)
    readme = README.format(
        version=a.version, arch_name={'x64': 'x86-64', 'arm64': 'aarch64'}[a.arch],
        junit='\n  lib/pinwatch-junit.jar the JUnit 5 extension (io.pinwatch.junit)'
        if 'lib/pinwatch-junit.jar' in files else '')
    files['README.md'] = (readme.encode(), 0o644)

    def info(name, mode, size=0, kind=tarfile.REGTYPE):
        t = tarfile.TarInfo(name)
        t.mode, t.size, t.type, t.mtime = mode, size, kind, a.epoch
        t.uid = t.gid = 0
        t.uname = t.gname = ''
        return t

    dirs = sorted({top} | {top + '/' + os.path.dirname(n) for n in files if '/' in n})
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, top + '.tar.gz')
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode='w', format=tarfile.GNU_FORMAT) as tar:
        for d in dirs:
            tar.addfile(info(d + '/', 0o755, kind=tarfile.DIRTYPE))
        for name in sorted(files):
            data, mode = files[name]
            tar.addfile(info(top + '/' + name, mode, len(data)), io.BytesIO(data))
    with open(path + '.part', 'wb') as f:
        # gzip -n: no file name, time 0 in the header.
        with gzip.GzipFile(filename='', mode='wb', fileobj=f, mtime=0, compresslevel=9) as gz:
            gz.write(raw.getvalue())
    os.replace(path + '.part', path)
    print('%s (%d bytes)' % (path, os.path.getsize(path)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
