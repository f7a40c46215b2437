#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu; the zip is
# unpacked in /autograder/source). It installs what the workbook needs, saying what it
# installs, then builds the workbook's shared check programs so that each submission's grading
# only compiles the student's kernels. A failure here fails the image's build, with the reason.
#   WB_CUDA_VERSION  the CUDA toolkit installed where there is no nvcc (default 13-0; 12-8 for a
#                    V100's sm_70, which CUDA 13 cannot build for)
set -u
wb=$(cd "$(dirname "$0")" && pwd)/workbook
cuda=${WB_CUDA_VERSION:-13-0}
export DEBIAN_FRONTEND=noninteractive
say() { printf 'setup.sh: %s\n' "$*"; }
die() { say "$*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run me as root (Gradescope does): I install packages with apt-get."
[ -d "$wb" ] || die "there is no workbook/ beside me ($wb): unpack the whole autograder.zip."

# The C side (cmocka for the judges' cases, libseccomp and bubblewrap for the sandboxes,
# libarchive for hand-ins uploaded as archives), make; wget for NVIDIA's repository.
packages=(build-essential make libcmocka-dev libseccomp-dev bubblewrap libarchive-dev ca-certificates wget)
say "installing ${packages[*]}"
apt-get update -q > /dev/null && apt-get install -y -q --no-install-recommends "${packages[@]}" > /dev/null ||
  die "apt-get could not install ${packages[*]} (above)."

# nvcc: the toolkit's compiler makes the PTX the emulator runs (and, on a GPU, the cubins).
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2> /dev/null)
if [ -n "$nvcc" ]; then
  say "the CUDA toolkit is here already: $nvcc ($("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
else
  . /etc/os-release
  case $(uname -m) in x86_64) arch=x86_64 ;; aarch64) arch=sbsa ;; *) die "no CUDA repository for $(uname -m)." ;; esac
  repo=https://developer.download.nvidia.com/compute/cuda/repos/${ID}${VERSION_ID//./}/$arch
  # Without a GPU the compiler and the runtime's headers are all the emulator needs; with one,
  # the whole toolkit (compute-sanitizer and Nsight Compute are the GPU judge's gates).
  if nvidia-smi -L > /dev/null 2>&1; then cuda_packages=("cuda-toolkit-$cuda")
  else cuda_packages=("cuda-nvcc-$cuda" "cuda-cudart-dev-$cuda"); fi
  say "no CUDA toolkit (nvcc) here: installing ${cuda_packages[*]} from NVIDIA's repository $repo"
  keyring=$(mktemp)
  wget -q -O "$keyring" "$repo/cuda-keyring_1.1-1_all.deb" && dpkg -i "$keyring" > /dev/null &&
    apt-get update -q > /dev/null && apt-get install -y -q --no-install-recommends "${cuda_packages[@]}" > /dev/null ||
    die "installing the CUDA toolkit from $repo failed (above); install nvcc another way, or set WB_CUDA_VERSION."
  rm -f "$keyring"
  [ -x /usr/local/cuda/bin/nvcc ] || die "the CUDA packages are installed but /usr/local/cuda/bin/nvcc is not there."
fi

cd "$wb" || exit 1
# Modes an unzip dropped (.executables: what the zip had executable).
[ -f .executables ] && while IFS= read -r f; do chmod +x -- "$f"; done < .executables
make -s --no-print-directory doctor || die "make doctor says something is missing (above)."
say "building the shared check programs of every lesson (they are the same for every submission)"
make -s --no-print-directory -j"$(nproc)" programs SRC=solutions > /dev/null ||
  die "the workbook's programs did not build: run make programs SRC=solutions in $wb to see why."
judge="CPU emulator"
nvidia-smi -L > /dev/null 2>&1 && judge="GPU judge"
say "ready: $(sed -n 's/^lessons=/lessons /p' GRADESCOPE) graded by the $judge."
