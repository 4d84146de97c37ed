#!/usr/bin/env bash
# Makes sure an OpenCL runtime is present: installs Debian's PoCL (OpenCL on the CPU) when
# no OpenCL driver is registered, using apt-get as root; otherwise says what to install.
set -euo pipefail
if ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1'; then
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "installing PoCL (an OpenCL implementation on the CPU)..." >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pocl-opencl-icd ocl-icd-libopencl1 >/dev/null
	exit 0
fi
echo "No OpenCL runtime found. Install one, e.g.: sudo apt-get install pocl-opencl-icd ocl-icd-libopencl1" >&2
exit 1
