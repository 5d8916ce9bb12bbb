#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The arm64 Debian 12 tree the aarch64 build and tests use, and the Meson cross file for it:
#
#   bash .ci/aarch64-tree.sh ROOT      (ROOT absolute; writes ROOT and ROOT/cross.ini)
#
# The tree is the cross compiler's sysroot, pkg-config's root and qemu-user's -L root.  It
# is unpacked from Debian's archive with mmdebstrap --variant=extract (no chroot, no dpkg
# --add-architecture, host packages untouched) and reused when a previous run completed it
# with the same package list; anything else is thrown away and unpacked again.
set -euo pipefail
root=${1:?usage: aarch64-tree.sh ROOT}
case $root in /*) ;; *) echo "aarch64-tree.sh: ROOT must be absolute: $root" >&2; exit 2 ;; esac
packages=openjdk-17-jdk-headless,libc6,libc6-dev,libunwind-dev,libdw-dev,libelf-dev,zlib1g-dev
packages+=,liblzma-dev,libjson-c-dev,liblz4-java,liblz4-jni
# the unit test symbols can only fail where elfutils' debuginfod client is there to be loaded
packages+=,libdebuginfod1
stamp=$root/.pinwatch-tree-complete
if [ "$(cat "$stamp" 2>/dev/null)" != "$packages" ]; then
	rm -rf "$root"
	# No mirror argument: Debian's default mirror, with bookworm-updates and -security.
	mmdebstrap --quiet --arch=arm64 --variant=extract --include="$packages" bookworm "$root"
	# Absolute links (jvm.cfg -> /etc/..., libz.so -> /lib/...) must stay inside the tree:
	# neither qemu -L nor gcc --sysroot chroots.
	find "$root" -type l -lname '/*' | while IFS= read -r l; do
		ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$root$(readlink "$l")")" "$l"
	done
	echo "$packages" >"$stamp"
fi
java_home=$root/usr/lib/jvm/java-17-openjdk-arm64
[ -x "$java_home/bin/java" ] || { echo "aarch64-tree.sh: no arm64 JDK 17 in $root" >&2; exit 1; }
# The Java fixtures are bytecode: the host's javac builds them.
cat >"$root/cross.ini" <<EOC
[binaries]
c = 'aarch64-linux-gnu-gcc'
ar = 'aarch64-linux-gnu-ar'
strip = 'aarch64-linux-gnu-strip'
pkgconfig = 'pkg-config'
java = '/usr/lib/jvm/java-17-openjdk-amd64/bin/javac'
exe_wrapper = ['qemu-aarch64-static', '-L', '$root']

[properties]
sys_root = '$root'
pkg_config_libdir = ['$root/usr/lib/aarch64-linux-gnu/pkgconfig', '$root/usr/share/pkgconfig']
java_home = '$java_home'

[built-in options]
c_args = ['--sysroot=$root']
c_link_args = ['--sysroot=$root']

[host_machine]
system = 'linux'
cpu_family = 'aarch64'
cpu = 'aarch64'
endian = 'little'
EOC
