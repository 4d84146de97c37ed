#!/usr/bin/env bash
# Makes sure clang++ is present: the tests compile the CUDA examples' kernels to PTX with
# clang's CUDA front end, which needs no GPU and no CUDA toolkit. Installs Debian's clang
# with apt-get as root; otherwise says what to install.
set -euo pipefail
if command -v clang++ >/dev/null; then
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "installing clang (to compile the CUDA examples to PTX in the tests)..." >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null
	exit 0
fi
echo "clang++ not found: the CUDA kernels will not be compiled without a GPU. Install it, e.g.: sudo apt-get install clang" >&2
exit 1
