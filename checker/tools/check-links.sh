#!/usr/bin/env bash
# Every local link and image of the built site must resolve: href="..." and src="..." that are
# not external (http:, https:, mailto:), not embedded (data:) and not in-page (#...) must name
# a file that exists. Usage: checker/tools/check-links.sh docs/html
set -u
site=${1:-docs/html}
checked=0 broken=0
for page in "$site"/*.html; do
  dir=$(dirname "$page")
  while IFS= read -r target; do
    case "$target" in http:*|https:*|mailto:*|data:*|'#'*|'') continue ;; esac
    file=${target%%#*}
    checked=$((checked + 1))
    if [ ! -e "$dir/$file" ]; then
      broken=$((broken + 1)); echo "  broken link in $page: $target"
    fi
  done < <(grep -o -E '(href|src)="[^"]*"' "$page" | sed -E 's/^(href|src)="(.*)"$/\2/')
done
echo "links: $((checked - broken)) passed, $broken failed"
[ $broken -eq 0 ]
