# shellcheck shell=bash
# Sourced by the scripts that run steps on a GPU machine and pack their reports (gpu-gates.sh,
# ptx-gpu-check.sh): their arguments, the steps chosen, and the build every step needs.

# gpu_steps DEFAULT_DIR "DEFAULT_STEPS" [DIR] [STEP...]: out (the reports' folder, made), steps
# (those named, else the defaults) and make ($MAKE, else make).
gpu_steps() {
  local default_out=$1 default_steps=$2
  shift 2
  out=${1:-$default_out}
  shift || true
  steps=" ${*:-$default_steps} "
  make=${MAKE:-make}
  mkdir -p "$out"
}
# step NAME: whether NAME is among the steps.
step() { [[ "$steps" == *" $1 "* ]]; }
# took WHAT: the seconds since the last `took` (or since this file was sourced), said.
t0=$(date +%s)
took() { echo "$1: $(( $(date +%s) - t0 )) s"; t0=$(date +%s); }
# Everything built, its log in the reports; the script ends if the build fails.
build_all() {
  $make -s -j"$(nproc)" build-all > "$out/build.log" 2>&1 ||
    { echo "build failed:"; tail -30 "$out/build.log"; exit 1; }
  took build
}
