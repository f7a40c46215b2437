#!/usr/bin/env bash
# make watch: re-checks the selected lesson every time its file is saved, with a real watcher
# (entr, or inotifywait from inotify-tools); without one it says what to install. Ctrl-C stops.
#   Usage: checker/tools/watch.sh FILE   (the Makefile passes the selected lesson's work file)
set -u
file=$1
make=${MAKE:-make}
[ -f "$file" ] || { echo "There is no $file yet: make lessonN starts a lesson."; exit 1; }
echo "Watching $file: every save runs make check (Ctrl-C stops)."
if command -v entr > /dev/null; then
  # -p waits for the first save; in a terminal -c clears the screen before each check, and
  # without one (a pipe, an editor's task runner) -n keeps entr from asking for a terminal.
  flags=-c; [ -t 1 ] || flags=-n
  echo "$file" | exec entr -p $flags "$make" -s --no-print-directory check
elif command -v inotifywait > /dev/null; then
  while inotifywait -qq -e close_write -e moved_to "$(dirname "$file")"; do
    clear 2>/dev/null || true
    "$make" -s --no-print-directory check
  done
else
  echo "make watch needs a file watcher: install entr or inotify-tools (Debian, Ubuntu: sudo apt-get install entr)."
  exit 1
fi
