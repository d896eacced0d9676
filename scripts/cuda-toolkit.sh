#!/usr/bin/env bash
# cuda-toolkit.sh — fetch and unpack the CUDA 11.8 toolkit from Debian's
# non-free archive into a cache directory OUTSIDE the repository, without
# touching the machine's apt configuration, and print the environment that
# builds `-tags cuda` code and runs nvcc against it.
#
# Usage:
#   eval "$(bash scripts/cuda-toolkit.sh)"       # fetch if needed, then export
#   bash scripts/cuda-toolkit.sh --print-root    # fetch if needed, print the root
#   bash scripts/cuda-toolkit.sh --print-mirror  # print the mirror it would use
#
# Mirror: $PURSUIT_CUDA_MIRROR, default the machine's own Debian mirror: the
# first `deb` entry for the suite ($PURSUIT_CUDA_SUITE, default bookworm) in
# apt's sources (sources.list and sources.list.d's one-line .list and deb822
# .sources files under $PURSUIT_APT_ETC, default /etc/apt).
# Cache: $PURSUIT_CUDA_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/pursuit/cuda-11.8.
# It is idempotent: a complete cache (stamp file matching the package list)
# is reused without network access. Progress goes to stderr; stdout carries
# only the export lines (or the root with --print-root).
#
# How: apt gets a private sources list, state, cache and archive directory
# under the cache (-o Dir::Etc::SourceList=… -o Dir::Etc::SourceParts=/dev/null
# -o Dir::State::Lists=… -o Dir::Cache=…), so /etc/apt and /var/lib/apt are
# never written; `apt-get download` fetches the .debs (signatures checked
# against the machine's Debian keyring) and dpkg-deb unpacks each one (as
# `dpkg-deb -x`, without the static libraries) into $CACHE/root. Nothing is
# installed into the system.
set -euo pipefail

log() { printf 'cuda-toolkit: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

MODE=env
case "${1:-}" in
"") ;;
--print-root) MODE=root ;;
--print-mirror) MODE=mirror ;;
-h | --help)
	sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*) die "unknown argument '$1' (use --print-root, --print-mirror or no argument)" ;;
esac

# apt_mirror SUITE: print the URI of the first `deb` entry for SUITE (the
# suite exactly: not SUITE-security or SUITE-updates, which other archives
# serve) in the apt sources under $PURSUIT_APT_ETC (default /etc/apt), in
# apt's order: sources.list, then sources.list.d/*.list (one-line format)
# and *.sources (deb822) by name. Disabled entries (Enabled: no, comments)
# and other files are skipped. Prints nothing when there is none.
apt_mirror() {
	local suite=$1 etc=${PURSUIT_APT_ETC:-/etc/apt} f uri
	for f in "$etc/sources.list" "$etc"/sources.list.d/*; do
		[ -f "$f" ] || continue
		case "$f" in
		*.sources)
			uri=$(awk -v suite="$suite" '
				function flush() {
					if (enabled != "no" && (" " types " ") ~ / deb / && (" " suites " ") ~ (" " suite " ") && uris != "") {
						split(uris, u, " "); print u[1]; found = 1
					}
					types = ""; suites = ""; uris = ""; enabled = ""; key = ""
				}
				{ sub(/\r$/, "") }
				/^#/ { next }
				/^[ \t]*$/ { flush(); if (found) exit; next }
				/^[ \t]/ { # a continuation line
					v = $0; gsub(/^[ \t]+|[ \t]+$/, "", v)
					if (key == "types") types = types " " v
					else if (key == "suites") suites = suites " " v
					else if (key == "uris") uris = uris " " v
					next
				}
				{
					key = tolower($0); sub(/:.*/, "", key)
					v = $0; sub(/^[^:]*:[ \t]*/, "", v); sub(/[ \t]+$/, "", v)
					if (key == "types") types = v
					else if (key == "suites") suites = v
					else if (key == "uris") uris = v
					else if (key == "enabled") enabled = tolower(v)
				}
				END { if (!found) flush() }' "$f")
			;;
		*/sources.list | *.list)
			uri=$(awk -v suite="$suite" '
				{ sub(/\r$/, ""); sub(/#.*/, "") }
				$1 == "deb" {
					line = $0
					sub(/^[ \t]*deb[ \t]+/, "", line)
					if (line ~ /^\[/) sub(/^\[[^]]*\][ \t]*/, "", line)
					n = split(line, w, /[ \t]+/)
					if (n >= 2 && w[2] == suite) { print w[1]; exit }
				}' "$f")
			;;
		*) continue ;;
		esac
		if [ -n "$uri" ]; then
			printf '%s\n' "${uri%/}"
			return 0
		fi
	done
}

CACHE="${PURSUIT_CUDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pursuit/cuda-11.8}"
SUITE="${PURSUIT_CUDA_SUITE:-bookworm}"
MIRROR="${PURSUIT_CUDA_MIRROR:-$(apt_mirror "$SUITE")}"
[ -n "$MIRROR" ] || die "no 'deb' entry for suite $SUITE in the apt sources under ${PURSUIT_APT_ETC:-/etc/apt} (sources.list, sources.list.d/*.list, *.sources); set PURSUIT_CUDA_MIRROR to a Debian mirror, e.g. PURSUIT_CUDA_MIRROR=http://<host>/debian"
if [ "$MODE" = mirror ]; then
	printf '%s\n' "$MIRROR"
	exit 0
fi
# What nvcc, the cgo headers and the link stubs need. cuBLAS is left out on
# purpose: package cuda uses the driver API only (see cuda/doc.go).
PACKAGES=(nvidia-cuda-toolkit nvidia-cuda-dev libnvvm4 libcudart11.0 libcuda1)
ROOT="$CACHE/root"
STAMP="$CACHE/.complete"
WANT="suite=$SUITE packages=${PACKAGES[*]}"

case "$CACHE" in
/*) ;;
*) die "PURSUIT_CUDA_CACHE must be an absolute path, got '$CACHE'" ;;
esac
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "$CACHE/" in
"$REPO"/*) die "the cache $CACHE is inside the repository $REPO; set PURSUIT_CUDA_CACHE elsewhere" ;;
esac

fetch() {
	local t0=$SECONDS
	for tool in apt-get dpkg-deb gpgv tar; do
		command -v "$tool" >/dev/null || die "'$tool' not found: this script needs a Debian (bookworm) machine"
	done
	log "fetching CUDA 11.8 from Debian $SUITE non-free into $CACHE (about 1 GB, once)"
	local apt="$CACHE/apt"
	rm -rf "$ROOT" "$STAMP" "$apt/debs"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$ROOT"
	printf 'deb %s %s main contrib non-free non-free-firmware\n' "$MIRROR" "$SUITE" >"$apt/sources.list"
	local opts=(
		-o "Dir::Etc::SourceList=$apt/sources.list"
		-o "Dir::Etc::SourceParts=/dev/null"
		-o "Dir::State::Lists=$apt/lists"
		-o "Dir::Cache=$apt/cache"
		-o "APT::Get::List-Cleanup=0"
		-o "Acquire::Languages=none"
		-o "Debug::NoLocking=1"
		-o "APT::Sandbox::User=root"
		-o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
	)
	local try
	for try in 1 2 3; do
		log "apt-get update (private lists in $apt/lists), try $try"
		apt-get "${opts[@]}" -q update >&2 && break
		[ "$try" = 3 ] && die "apt-get update with the private sources list failed 3 times (is $MIRROR reachable?)"
		sleep 10
	done
	for try in 1 2 3; do
		log "apt-get download ${PACKAGES[*]}, try $try"
		(cd "$apt/debs" && apt-get "${opts[@]}" -q download "${PACKAGES[@]}" >&2) && break
		[ "$try" = 3 ] && die "apt-get download failed 3 times"
		sleep 10
	done
	local deb
	for deb in "$apt/debs"/*.deb; do
		# As dpkg-deb -x, minus the static libraries (2.7 of the 2.9 GB
		# unpacked), which nothing here links.
		log "unpack $(basename "$deb")"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$ROOT" --exclude='*.a' ||
			die "unpacking $deb failed"
	done
	rm -rf "$apt/debs" "$apt/cache"
	[ -x "$ROOT/usr/lib/nvidia-cuda-toolkit/bin/nvcc" ] || die "nvcc missing after unpacking into $ROOT"
	printf '%s\n' "$WANT" >"$STAMP"
	log "toolkit ready in $((SECONDS - t0)) s: $(du -sh "$ROOT" | cut -f1) in $ROOT"
}

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -x "$ROOT/usr/lib/nvidia-cuda-toolkit/bin/nvcc" ]; then
	log "reusing the cached toolkit in $ROOT"
else
	fetch
fi

if [ "$MODE" = root ]; then
	printf '%s\n' "$ROOT"
	exit 0
fi

LIB="$ROOT/usr/lib/x86_64-linux-gnu"
# The toolkit's bin directory holds gcc/g++ wrappers that refuse to run, so it
# goes at the END of PATH and cgo gets the system compilers explicitly.
CC_PATH="$(command -v gcc || true)"
CXX_PATH="$(command -v g++ || true)"
[ -n "$CC_PATH" ] || die "gcc not found: install it (apt-get install -y gcc g++)"
[ -n "$CXX_PATH" ] || die "g++ not found: install it (apt-get install -y g++)"
case "$CC_PATH" in "$ROOT"/*) die "gcc resolves to the toolkit's wrapper $CC_PATH; put /usr/bin first in PATH" ;; esac
cat <<ENV
export PURSUIT_CUDA_ROOT='$ROOT'
export PATH="\$PATH":'$ROOT/usr/lib/nvidia-cuda-toolkit/bin'
export CC='$CC_PATH'
export CXX='$CXX_PATH'
export CGO_ENABLED=1
export CGO_CFLAGS='-I$ROOT/usr/include -I$ROOT/usr/lib/cuda/include'
export CGO_LDFLAGS='-L$LIB/stubs -L$LIB'
export NVCC_FLAGS='-ccbin $CC_PATH -allow-unsupported-compiler -I$ROOT/usr/include'
ENV
