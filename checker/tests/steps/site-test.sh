#!/usr/bin/env bash
# The site (make docs: every page built, every link checked), then rendered in Chromium
# (checker/tools/docs-test.sh). make test's test-tools step installs pandoc and chromium, or says how.
set -u
${MAKE:-make} -s --no-print-directory docs || exit 1
exec checker/tools/docs-test.sh docs/html
