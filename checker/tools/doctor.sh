#!/usr/bin/env bash
# Checks the tools the workbook needs; installs cmocka when it can (root with apt-get),
# otherwise says exactly what to install. Silent when everything is there.
set -u
missing=0

have_cmocka() {
  if [ -n "${CMOCKA_DIR:-}" ]; then
    [ -f "$CMOCKA_DIR/include/cmocka.h" ]
  else
    printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\nint main(void){return 0;}\n' |
      ${CC:-cc} -x c - -o /dev/null -lcmocka >/dev/null 2>&1
  fi
}

if ! command -v "${CC:-cc}" >/dev/null 2>&1; then
  echo "No C compiler: install gcc (Debian/Ubuntu: sudo apt-get install -y build-essential)."
  missing=1
fi

if ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1 && [ ! -x "${NVCC:-}" ]; then
  echo "No CUDA compiler (nvcc): install the CUDA Toolkit (https://developer.nvidia.com/cuda-downloads;"
  echo "CUDA 12.x builds for GPUs from sm_70, CUDA 13 from sm_75), then put its bin/ on PATH or say NVCC=/path/to/nvcc."
  missing=1
fi

# The two slow checks below (the toolkit's list of architectures, a test compile against
# cmocka) are skipped where they passed before with the same compilers and settings: make check
# runs this script every time, and make test hundreds of times.
stamp=build/doctor-passed
nvcc_path=$(command -v "${NVCC:-nvcc}" 2>/dev/null || echo "${NVCC:-}")
key="$(command -v "${CC:-cc}") $nvcc_path $(stat -c %Y -- "$nvcc_path" 2>/dev/null) ${CMOCKA_DIR:-} ${CUDA_ARCH:-}"
passed_before=0
[ -f "$stamp" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ] && passed_before=1

# A GPU older than this toolkit supports (CUDA 13 starts at compute capability 7.5).
arches=$([ $passed_before = 1 ] || "${NVCC:-nvcc}" --list-gpu-arch 2>/dev/null)
if [ -n "$arches" ] && [ -n "${CUDA_ARCH:-}" ] && ! grep -qx "compute_${CUDA_ARCH}" <<<"$arches"; then
  echo "This CUDA Toolkit ($("${NVCC:-nvcc}" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')) cannot build for compute capability"
  echo "${CUDA_ARCH} (the GPU's, or CUDA_ARCH=). It builds for: $(sed 's/compute_//' <<<"$arches" | tr '\n' ' ')."
  echo "For a 7.0 GPU (V100) install CUDA 12.x; otherwise say CUDA_ARCH= one of those."
  missing=1
fi

# install_or_say PACKAGES WHY: installs Debian packages as root with apt, or says the command.
install_or_say() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "$2 is missing; installing it: apt-get install -y $1"
    if ! { apt-get install -y $1 >/dev/null 2>&1 ||
           { apt-get update >/dev/null 2>&1 && apt-get install -y $1 >/dev/null 2>&1; }; }; then
      echo "Installing it failed: run 'apt-get update && apt-get install -y $1' and read its error."
      missing=1
    fi
  else
    echo "$2 is missing: install it (Debian/Ubuntu: sudo apt-get install -y $1; $3)."
    missing=1
  fi
}

if [ $passed_before = 0 ] && ! have_cmocka; then
  if [ -n "${CMOCKA_DIR:-}" ]; then
    echo "cmocka is not in CMOCKA_DIR=$CMOCKA_DIR (expected include/cmocka.h there)."
    missing=1
  else
    install_or_say libcmocka-dev cmocka "Fedora: sudo dnf install libcmocka-devel; or unpack it somewhere and say CMOCKA_DIR=that/usr"
  fi
fi

# Both judges compile a lesson file in bubblewrap's box (checker/compile/, the sealed compile). The
# CPU emulator (used without a GPU, or with EMU=1) interprets the PTX nvcc makes, in a sandbox
# of libseccomp's filter and bubblewrap's namespaces.
command -v bwrap >/dev/null 2>&1 || install_or_say bubblewrap "bubblewrap (the sealed compile and the emulator's sandbox)" "Fedora: sudo dnf install bubblewrap"
if [ -n "${EMU:-}" ]; then
  [ -f /usr/include/seccomp.h ] || install_or_say libseccomp-dev "libseccomp (the emulator's sandbox)" "Fedora: sudo dnf install libseccomp-devel"
fi

# Grading a class (make grade-all, which says WB_COURSE=1) is Python 3's: checker/course/.
if [ -n "${WB_COURSE:-}" ] && ! command -v python3 >/dev/null 2>&1; then
  install_or_say python3 "python3 (make grade-all: checker/course/)" "Fedora: sudo dnf install python3"
fi

# make watch needs a file watcher, nothing else does: at set-up (make lessonN, make doctor, make
# watch; WB_SETUP=1) it is installed as root, else mentioned. Never a reason to refuse a check:
# a grader offline, or without root, grades without it.
if [ -n "${WB_SETUP:-}" ] && ! command -v entr >/dev/null 2>&1 && ! command -v inotifywait >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "entr (for make watch) is missing; installing it: apt-get install -y entr"
    { apt-get install -y entr >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y entr >/dev/null 2>&1; }; } ||
      echo "(could not install entr, which only make watch needs: run 'apt-get update && apt-get install -y entr')"
  else
    echo "(make watch, which re-checks on every save, needs entr: sudo apt-get install -y entr)"
  fi
fi

# make test's own tools: stress-ng (the load test), pandoc and chromium (the site in a browser), and
# flock (util-linux: the case runner's and the GPU's locks).
if [ -n "${TEST_TOOLS:-}" ]; then
  command -v flock >/dev/null 2>&1 || install_or_say util-linux "flock (make test's locks)" "Fedora: sudo dnf install util-linux"
  command -v stress-ng >/dev/null 2>&1 || install_or_say stress-ng "stress-ng (make test's load test)" "Fedora: sudo dnf install stress-ng"
  command -v "${PANDOC:-pandoc}" >/dev/null 2>&1 || install_or_say pandoc "pandoc (make test's site test)" "Fedora: sudo dnf install pandoc"
  command -v chromium >/dev/null 2>&1 || install_or_say chromium "chromium (make test's site test)" "Fedora: sudo dnf install chromium"
  [ -f /usr/include/archive.h ] || [ -f /usr/local/include/archive.h ] ||
    install_or_say libarchive-dev "libarchive (hand-ins as archives: make test's intake test)" "Fedora: sudo dnf install libarchive-devel"
fi

# make docs needs pandoc.
if [ -n "${DOCS:-}" ] && ! command -v "${PANDOC:-pandoc}" >/dev/null 2>&1; then
  install_or_say pandoc "pandoc (for make docs)" "Fedora: sudo dnf install pandoc; or https://pandoc.org/installing.html"
fi

[ $missing = 0 ] && [ $passed_before = 0 ] && mkdir -p build 2>/dev/null && echo "$key" > "$stamp" 2>/dev/null
exit $missing
