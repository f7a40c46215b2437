#!/usr/bin/env bash
# make grade-all on generated hand-ins (solutions, stubs, wrong kernels, missing files) in the
# emulator: the expected gradebook, resumable, and the same through the Slurm scripts
# (checker/tools/grade-all-test.sh, six students).
MAKE=${MAKE:-make} EMU=1 exec checker/tools/grade-all-test.sh 6
