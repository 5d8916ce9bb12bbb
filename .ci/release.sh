#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The release archives, one command (README.md "Get pinwatch"; agent/HOW-IT-WORKS.md, "The
# self-contained build"):
#
#   bash .ci/release.sh [--check-reproducible] OUT [CACHE]
#
# makes OUT/pinwatch-VERSION-linux-x64.tar.gz and OUT/pinwatch-VERSION-linux-arm64.tar.gz from
# the commit checked out (time stamps: the commit's).  CACHE (default build-release, beside
# the source tree's build dirs) keeps what later runs reuse: the Debian 11 sysroots and the
# static archives (.ci/release-deps.sh), and the self-contained build dirs build-x64 and
# build-arm64 (x64 native, arm64 cross; both configured with -Dself_contained=true by their
# machine files).  --check-reproducible then builds both again from nothing in
# CACHE/again-ARCH and fails unless the second archives are byte-identical to the first.
# Then the Maven artifacts (agent/java/build_maven.py), pinwatch-agent carrying both archives'
# agents, are deployed into OUT/maven-central, the file repository laid out as Maven Central is
# (the local repository Maven works in: PINWATCH_MAVEN_REPO, default CACHE/m2; nothing is
# installed there); --check-reproducible deploys them again from the second archives and
# compares every jar and pom.
# Prints "[release] ..." lines with the time each part took.
set -euo pipefail

log() { echo "[release] $*" >&2; }

check=false
if [ "${1:-}" = --check-reproducible ]; then
	check=true
	shift
fi
out=${1:?usage: release.sh [--check-reproducible] OUT [CACHE]}
cache=${2:-build-release}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(realpath -m "$out")
cache=$(realpath -m "$cache")
mkdir -p "$out" "$cache"
cd "$src"

# The JNI headers and javac: JDK 17's unless the caller named one (as .ci/run does).
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
export PATH=$JAVA_HOME/bin:$PATH

epoch=$(git log -1 --format=%ct)
version=$(meson introspect --projectinfo meson.build |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')

# ARCH DIR OUT: a self-contained build in DIR (set up when new) and its archive in OUT.
archive() {
	local arch=$1 dir=$2 dest=$3 t0 flag strip
	t0=$(date +%s)
	flag=--native-file
	strip=strip
	if [ "$arch" = arm64 ]; then
		flag=--cross-file
		strip=aarch64-linux-gnu-strip
	fi
	if [ ! -f "$dir/build.ninja" ]; then
		rm -rf "$dir"
		# JDK 17 only: the release build's own tests (suite release) run there.
		meson setup "$flag" "$cache/$arch.ini" "$dir" -Dtemurin_home= -Djdk21_home= \
			-Djdk25deb_home= >"$cache/setup-$(basename "$dir").log"
	fi
	local targets=(agent/pinwatch:shared_module agent/cli/pinwatch:executable
		agent/java/api/pinwatch-api:jar)
	if meson introspect --targets "$dir" | grep -q '"pinwatch-junit.jar"'; then
		targets+=(agent/java/junit/pinwatch-junit.jar:custom)
	fi
	meson compile -C "$dir" "${targets[@]}" >"$dir/release-compile.log"
	python3 .ci/make_archive.py --build "$dir" --arch "$arch" --strip "$strip" --source "$src" \
		--epoch "$epoch" --version "$version" --out "$dest"
	log "$arch archive from $dir in $(($(date +%s) - t0)) s"
}

# ARCHIVES DEST WORK: the Maven artifacts, pinwatch-agent carrying the agents of both archives in
# ARCHIVES (the very bytes the archives hold, stripped as they are), deployed into DEST.
maven_repo=$(realpath -m "${PINWATCH_MAVEN_REPO:-$cache/m2}")
maven() {
	local from=$1 dest=$2 work=$3 t0 arch platform natives=()
	t0=$(date +%s)
	rm -rf "$work/natives-in"
	for arch in x64 arm64; do
		platform=linux-x86_64
		[ "$arch" = arm64 ] && platform=linux-aarch64
		mkdir -p "$work/natives-in/$platform"
		tar -xzf "$from/pinwatch-$version-linux-$arch.tar.gz" -O \
			"pinwatch-$version-linux-$arch/lib/libpinwatch.so" >"$work/natives-in/$platform/libpinwatch.so"
		natives+=(--native "$platform=$work/natives-in/$platform/libpinwatch.so")
	done
	python3 agent/java/build_maven.py --mvn mvn --pom agent/java/pom.xml --version "$version" \
		"${natives[@]}" --build-dir "$work/maven" --central "$dest" --local-repo "$maven_repo" --no-install
	log "Maven artifacts (agents for linux-x86_64 and linux-aarch64) in $dest in $(($(date +%s) - t0)) s"
}

for arch in x64 arm64; do
	bash .ci/release-deps.sh "$arch" "$cache"
	archive "$arch" "$cache/build-$arch" "$out"
done
have_mvn=false
if command -v mvn >/dev/null; then
	have_mvn=true
	maven "$out" "$out/maven-central" "$cache"
else
	log "no mvn: no Maven artifacts in $out/maven-central"
fi

if $check; then
	rc=0
	rm -rf "$cache/again-out"
	for arch in x64 arm64; do
		rm -rf "$cache/again-$arch"
		archive "$arch" "$cache/again-$arch" "$cache/again-out"
		name=pinwatch-$version-linux-$arch.tar.gz
		if cmp "$out/$name" "$cache/again-out/$name"; then
			log "reproducible: $name is byte-identical from two build dirs"
		else
			log "NOT reproducible: $name differs between $cache/build-$arch and $cache/again-$arch"
			rc=1
		fi
	done
	if $have_mvn; then
		maven "$cache/again-out" "$cache/again-out/maven-central" "$cache/again"
		# maven-metadata.xml carries the deploy's time: the jars and poms are what must not differ.
		differ=$(cd "$out/maven-central" && find . -name '*.jar' -o -name '*.pom' | sort | while read -r f; do
			cmp -s "$f" "$cache/again-out/maven-central/$f" || echo "$f"
		done)
		if [ -z "$differ" ]; then
			log "reproducible: every jar and pom of $out/maven-central is byte-identical from two builds"
		else
			log "NOT reproducible: these Maven artifacts differ between two builds:" $differ
			rc=1
		fi
	fi
	exit $rc
fi
