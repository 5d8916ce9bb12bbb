#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What the self-contained (release) build links against, for one architecture:
#
#   bash .ci/release-deps.sh ARCH CACHE        ARCH: x64 or arm64; CACHE absolute
#
# writes, under CACHE:
#   sysroot-ARCH/   Debian 11 (bullseye)'s libc6-dev, unpacked with mmdebstrap --variant=extract:
#                   the compiler's --sysroot, so that nothing links against a glibc newer than
#                   2.31 (agent/glibc_compat.h takes the rest down to 2.28)
#   src/            Debian 12's source packages of zlib, elfutils, libunwind and json-c: the
#                   orig and debian tarballs, checked against the sha256 of their .dsc below
#   prefix-ARCH/    those four built from source against that sysroot as static archives of
#                   position-independent code with hidden symbols (Debian's own .a files are
#                   not PIC: they cannot go into a shared object), with their pkg-config files
#   ARCH.ini        the Meson machine file of the release build (native for x64, cross for arm64) (agent/HOW-IT-WORKS.md,
#                   "The self-contained build")
#
# Each part is reused when a previous run completed it with the same recipe (a stamp file
# written last); anything else is thrown away and made again.  Prints "[release-deps] ..."
# lines with the time each part took.  Downloads happen here only, never at build or run time.
set -euo pipefail

log() { echo "[release-deps] $*" >&2; }

arch=${1:?usage: release-deps.sh x64|arm64 CACHE}
cache=${2:?usage: release-deps.sh x64|arm64 CACHE}
case $cache in /*) ;; *) log "CACHE must be absolute: $cache"; exit 2 ;; esac
case $arch in
x64) deb_arch=amd64 triplet=x86_64-linux-gnu cc=gcc ar=ar strip=strip objdump=objdump cpu=x86_64 ;;
arm64) deb_arch=arm64 triplet=aarch64-linux-gnu cc=aarch64-linux-gnu-gcc ar=aarch64-linux-gnu-ar
	strip=aarch64-linux-gnu-strip objdump=aarch64-linux-gnu-objdump cpu=aarch64 ;;
*) log "ARCH is x64 or arm64, not $arch"; exit 2 ;;
esac
mkdir -p "$cache"
jobs=$(nproc)

# ---- the sysroot -----------------------------------------------------------------------------
sysroot=$cache/sysroot-$arch
sys_packages=libc6,libc6-dev,linux-libc-dev,libcrypt-dev
# bullseye's main suite only: security.debian.org answers 404 here for arm64 packages, and the
# sysroot is only what is linked against (glibc's 2.31 ABI), not what runs.
mirror="deb http://deb.debian.org/debian bullseye main"
if [ "$(cat "$sysroot/.pinwatch-complete" 2>/dev/null)" != "$sys_packages $mirror" ]; then
	t0=$(date +%s)
	rm -rf "$sysroot" "$sysroot.partial"
	ok=false
	# deb.debian.org's bullseye now and then answers one download of many wrongly: try again.
	for attempt in 1 2 3; do
		if mmdebstrap --quiet --arch="$deb_arch" --variant=extract --include="$sys_packages" \
			bullseye "$sysroot.partial" "$mirror" >&2; then
			ok=true
			break
		fi
		log "mmdebstrap failed (attempt $attempt)"
		rm -rf "$sysroot.partial"
		sleep 5
	done
	$ok || { log "cannot unpack Debian 11's $sys_packages"; exit 1; }
	# gcc --sysroot does not chroot: absolute links (libm.so -> /lib/...) must stay inside.
	find "$sysroot.partial" -type l -lname '/*' -print0 | while IFS= read -r -d '' l; do
		ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$sysroot.partial$(readlink "$l")")" "$l"
	done
	# linker scripts (libc.so, libm.so) name /usr/lib/...: ld prefixes them with the sysroot.
	mv "$sysroot.partial" "$sysroot"
	echo "$sys_packages $mirror" >"$sysroot/.pinwatch-complete"
	log "bullseye sysroot for $deb_arch in $(($(date +%s) - t0)) s ($(du -sh "$sysroot" | cut -f1))"
else
	log "reusing the bullseye sysroot in $sysroot"
fi

# ---- the sources, pinned -----------------------------------------------------------------------
# name  pool directory  orig tarball  its sha256  debian tarball  its sha256, from the .dsc of
# Debian 12 (bookworm)'s versions, the ones the ordinary build links as shared libraries: zlib
# 1:1.2.13.dfsg-1, elfutils 0.188-2.1, libunwind 1.6.2-3, json-c 0.16-2.  (Debian 11's own
# source packages are no longer in deb.debian.org's pool: elfutils_0.183.orig.tar.bz2 and
# libunwind_1.3.2.orig.tar.gz answer 404.  Built against the bullseye sysroot, bookworm's
# sources need nothing newer than its glibc.)
sources=(
	"zlib z/zlib zlib_1.2.13.dfsg.orig.tar.bz2 71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1 zlib_1.2.13.dfsg-1.debian.tar.xz f66cf3d4f2d7defcd4d1fd1fb0a11ee39f1e01b42ec7d059c9dc5c1695133c44"
	"elfutils e/elfutils elfutils_0.188.orig.tar.bz2 fb8b0e8d0802005b9a309c60c1d8de32dd2951b56f0c3a3cb56d21ce01595dff elfutils_0.188-2.1.debian.tar.xz dac77dc13f8f3bb2c541d631faf75216fc6640a359143a4545129ee096bc35ff"
	"libunwind libu/libunwind libunwind_1.6.2.orig.tar.gz 4a6aec666991fb45d0889c44aede8ad6eb108071c3554fcdff671f9c94794976 libunwind_1.6.2-3.debian.tar.xz 4f9133ec35c56d6e964db572ddd9bc8c61e393589d1f1989e15e60390db2a97a"
	"json-c j/json-c json-c_0.16.orig.tar.gz 3ecaeedffd99a60b1262819f9e60d7d983844073abc74e495cb822b251904185 json-c_0.16-2.debian.tar.xz 64e4334da662d62b735a876567620121f9f07cac9ad01f989034cbcf45c8ac84"
)
mkdir -p "$cache/src"
fetch() { # pool-dir file sha256
	local f=$cache/src/$2
	if [ -f "$f" ] && echo "$3  $f" | sha256sum -c --status; then return 0; fi
	curl -fsSL --retry 3 -o "$f.part" "https://deb.debian.org/debian/pool/main/$1/$2"
	if ! echo "$3  $f.part" | sha256sum -c --status; then
		log "$2: sha256 is not the pinned $3"
		rm -f "$f.part"
		return 1
	fi
	mv "$f.part" "$f"
}
for s in "${sources[@]}"; do
	read -r name dir orig orig_sum debian debian_sum <<<"$s"
	fetch "$dir" "$orig" "$orig_sum"
	fetch "$dir" "$debian" "$debian_sum"
done

# ---- the static PIC archives -------------------------------------------------------------------
prefix=$cache/prefix-$arch
work=$cache/work-$arch
# The recipe: the sources and this version of the build commands (bump it when they change).
recipe="recipe 2: ${sources[*]}"
if [ "$(cat "$prefix/.pinwatch-complete" 2>/dev/null)" != "$recipe" ]; then
	t0=$(date +%s)
	rm -rf "$prefix" "$work"
	mkdir -p "$prefix" "$work"
	# The sysroot first, for headers and libraries alike (see the machine file below): with the
	# cross compiler's own glibc 2.36 headers, json-c's configure finds arc4random (2.36).
	lib=$sysroot/usr/lib/$triplet
	sysflags="-B$lib -L$lib -L$sysroot/lib/$triplet"
	[ "$arch" = arm64 ] && sysflags+=" -isystem $sysroot/usr/include/$triplet -isystem $sysroot/usr/include"
	CC="$cc --sysroot=$sysroot $sysflags"
	# Hidden: nothing of these libraries leaves the agent (-Wl,--exclude-libs,ALL says it again
	# at link time).  No debug info: the agent never symbolises itself.  The source paths are
	# mapped so that the archives, and what links them, do not depend on where CACHE is.
	base_cflags="-O2 -fPIC -fvisibility=hidden -ffile-prefix-map=$work=/usr/src"
	export PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig
	unpack() { # name orig debian -> prints the source directory
		local d=$work/$1
		mkdir -p "$d"
		tar -xf "$cache/src/$2" -C "$d" --strip-components=1
		tar -xf "$cache/src/$3" -C "$d"
		if [ -f "$d/debian/patches/series" ]; then
			while read -r p _; do
				case $p in '' | '#'*) continue ;; esac
				patch -s -p1 -d "$d" <"$d/debian/patches/$p"
			done <"$d/debian/patches/series"
		fi
		echo "$d"
	}
	for s in "${sources[@]}"; do
		read -r name dir orig orig_sum debian debian_sum <<<"$s"
		t1=$(date +%s)
		src=$(unpack "$name" "$orig" "$debian")
		case $name in
		zlib)
			(cd "$src" && CC="$CC" CFLAGS="$base_cflags" CHOST=$triplet ./configure --static \
				--prefix="$prefix" --libdir="$prefix/lib" >/dev/null &&
				make -j"$jobs" libz.a >/dev/null && make install >/dev/null)
			;;
		elfutils)
			# libdw and libelf only (libdw.a holds libdwfl, libebl, the backends and libcpu).
			(cd "$src" && ./configure --host=$triplet --prefix="$prefix" --libdir="$prefix/lib" \
				CC="$CC" CFLAGS="$base_cflags -Wno-error" \
				CPPFLAGS="-I$prefix/include" LDFLAGS="-L$prefix/lib" \
				--disable-debuginfod --disable-libdebuginfod --disable-nls --without-bzlib \
				--without-lzma --without-zstd --disable-demangler --disable-symbol-versioning \
				--disable-textrelcheck >/dev/null &&
				for a in lib/libeu libelf/libelf libebl/libebl libdwelf/libdwelf libdwfl/libdwfl \
					libcpu/libcpu backends/libebl_backends; do
					# the plain archives only: CFLAGS makes them PIC (the _pic.a twins would be
					# the same code compiled twice)
					make -j"$jobs" -C "$(dirname $a)" "$(basename $a).a" >/dev/null || exit 1
				done &&
				make -j"$jobs" -C libdw libdw.a >/dev/null &&
				mkdir -p "$prefix/include/elfutils" "$prefix/lib/pkgconfig" &&
				cp libelf/libelf.a libdw/libdw.a "$prefix/lib/" &&
				cp libelf/libelf.h libelf/gelf.h libelf/nlist.h libdw/dwarf.h "$prefix/include/" &&
				cp libelf/elf-knowledge.h version.h libdw/libdw.h libdw/dwarf.h \
					libdwfl/libdwfl.h libdwelf/libdwelf.h "$prefix/include/elfutils/" &&
				cp config/libelf.pc config/libdw.pc "$prefix/lib/pkgconfig/")
			;;
		libunwind)
			(cd "$src" && ./configure --host=$triplet --prefix="$prefix" --libdir="$prefix/lib" \
				CC="$CC" CFLAGS="$base_cflags" --disable-shared --enable-static \
				--disable-minidebuginfo --disable-zlibdebuginfo --disable-coredump --disable-ptrace \
				--disable-setjmp --disable-tests --disable-documentation >/dev/null &&
				make -j"$jobs" >/dev/null && make install >/dev/null)
			;;
		json-c)
			mkdir -p "$src/build"
			(cd "$src/build" && cmake .. -DCMAKE_BUILD_TYPE=Release -DCMAKE_SYSTEM_NAME=Linux \
				-DCMAKE_SYSTEM_PROCESSOR=$cpu -DCMAKE_C_COMPILER=$cc -DCMAKE_SYSROOT="$sysroot" \
				-DCMAKE_C_FLAGS="$base_cflags $sysflags" -DCMAKE_INSTALL_PREFIX="$prefix" \
				-DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON \
				-DCMAKE_POSITION_INDEPENDENT_CODE=ON -DDISABLE_WERROR=ON -DBUILD_TESTING=OFF \
				>/dev/null && make -j"$jobs" >/dev/null && make install >/dev/null)
			;;
		esac
		log "$name for $arch built in $(($(date +%s) - t1)) s"
	done
	rm -rf "$work"
	if [ "$arch" = arm64 ]; then
		# A cross build has the sysroot as Meson's sys_root (the aarch64 tests' qemu root), which
		# Meson hands to pkg-config as PKG_CONFIG_SYSROOT_DIR, prefixed to every -I and -L: the
		# archives' paths are written as seen from the sysroot, their sibling.
		sed -i "s|$prefix|/../$(basename "$prefix")|g" "$prefix"/lib/pkgconfig/*.pc
	fi
	echo "$recipe" >"$prefix/.pinwatch-complete"
	log "static archives for $arch in $(($(date +%s) - t0)) s"
else
	log "reusing the static archives in $prefix"
fi

# ---- the Meson machine file ---------------------------------------------------------------------
# x64 is a native build (--native-file): its agent runs the whole suite on this machine's JDKs
# (glibc is backward compatible), the instruction counts included.  arm64 is a cross build
# (--cross-file), run under qemu-user with the sysroot as its -L root.  The host's JDK 17 gives
# the JNI headers (the same on both) and javac; the jars are bytecode.
ini=$cache/$arch.ini
{
	echo "[binaries]"
	echo "c = '$cc'"
	echo "ar = '$ar'"
	echo "strip = '$strip'"
	# the test self-contained reads the built agent and command with it
	echo "objdump = '$objdump'"
	echo "pkgconfig = 'pkg-config'"
	if [ "$arch" = arm64 ]; then
		echo "java = '/usr/lib/jvm/java-17-openjdk-amd64/bin/javac'"
		echo "exe_wrapper = ['qemu-aarch64-static', '-L', '$sysroot']"
	fi
	echo
	echo "[properties]"
	# x64 is native and needs no sys_root; with one, pkg-config would prefix the archives' paths
	[ "$arch" = arm64 ] && echo "sys_root = '$sysroot'"
	echo "pkg_config_libdir = ['$prefix/lib/pkgconfig']"
	[ "$arch" = arm64 ] && echo "java_home = '/usr/lib/jvm/java-17-openjdk-amd64'"
	echo
	echo "[built-in options]"
	if [ "$arch" = arm64 ]; then
		# the cross gcc reads /usr/aarch64-linux-gnu/include (Debian 12's glibc headers) before
		# the sysroot's: -isystem puts bullseye's first.
		echo "c_args = ['--sysroot=$sysroot', '-isystem', '$sysroot/usr/include/$triplet'," \
			"'-isystem', '$sysroot/usr/include']"
	else
		echo "c_args = ['--sysroot=$sysroot']"
	fi
	# gcc searches its own multiarch directories (the host's /usr/lib/x86_64-linux-gnu, or
	# /usr/aarch64-linux-gnu/lib of libc6-dev-arm64-cross: Debian 12's glibc) before the
	# sysroot's: -B and -L put the sysroot's crt files and libraries first.
	lib=$sysroot/usr/lib/$triplet
	echo "c_link_args = ['--sysroot=$sysroot', '-B$lib', '-L$lib', '-L$sysroot/lib/$triplet']"
	echo
	echo "[project options]"
	echo "self_contained = true"
	if [ "$arch" = arm64 ]; then
		echo
		echo "[host_machine]"
		echo "system = 'linux'"
		echo "cpu_family = '$cpu'"
		echo "cpu = '$cpu'"
		echo "endian = 'little'"
	fi
} >"$ini"
log "Meson machine file: $ini ($([ "$arch" = arm64 ] && echo --cross-file || echo --native-file))"
