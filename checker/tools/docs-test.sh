#!/usr/bin/env bash
# Renders the built site in headless Chromium and checks what a reader sees: the index with its
# title and every lesson linked, and lesson 3 with its title, its bank diagram (embedded, so it
# shows offline) and answer blocks that start closed. Usage: checker/tools/docs-test.sh docs/html
set -u
site=$(cd "${1:-docs/html}" && pwd)
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
pass=0 fail=0
render() {
  "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --disable-sync --no-first-run --user-data-dir="$(mktemp -d)" --dump-dom "file://$site/$1" 2>/dev/null | tr -d '\n'
}
expect() { # expect NAME PAGE-DOM PATTERN [absent]
  if { [ -z "${4:-}" ] && grep -qE -- "$3" <<<"$2"; } || { [ -n "${4:-}" ] && ! grep -qE -- "$3" <<<"$2"; }; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "  FAILED: $1"
  fi
}
index=$(render index.html)
expect "index has its title" "$index" '<title>Shared memory and bank conflicts</title>'
for page in "$site"/0*.html; do
  expect "index links $(basename "$page")" "$index" "href=\"$(basename "$page")\""
done
lesson=$(render 03_bank_conflicts.html)
expect "lesson 3 has its title" "$lesson" '<title>Lesson 3'
expect "lesson 3 shows the bank diagram, embedded" "$lesson" '<img[^>]+src="data:image/svg\+xml'
expect "lesson 3 has answer blocks" "$lesson" '<details><summary>Answer</summary>'
expect "lesson 3's answers start closed" "$lesson" '<details open' absent
expect "lesson 3's code is highlighted" "$lesson" 'class="sourceCode'
echo "docs in Chromium: $pass passed, $fail failed"
[ $fail -eq 0 ]
