#!/usr/bin/env bash
# `workbook lessons`, the Makefile's and the scripts' reader of lessons/registry. On a handout's
# registry (below: lessons left out, baselines of other families) every field and option prints
# what the awk reader it replaced printed, and --make and --subset what make and make handout
# need; on the real registry its options agree with each other and with build/lessons.mk; bad
# input is refused in one sentence, with exit status 2.
#   Usage: checker/tools/lessons-test.sh   (after make build/workbook)
set -u
wb=build/workbook
fields=(number folder kernel family baseline points student_lines baseline_family)
T=$(mktemp -d /tmp/wb-lessons-XXXXXX)
trap 'rm -rf "$T"' EXIT
handout=$T/handout-registry
cat > "$handout" <<'REGISTRY'
# A handout's registry, as `make handout HANDOUT_LESSONS='2 6 8'` writes it: lessons left out,
# their baselines moved to checker/baselines/.
#
# number folder            kernel              family         baseline                                          points student_lines
2        02_tiled_matmul   matmul_tiled        matmul         checker/baselines/matmul_naive.cu                 25     9
6        06_coarsening     transpose_coarsened transpose_32x8 transpose:checker/baselines/transpose_swizzled.cu 25     8
8        08_sgemm          sgemm_blocked       matmul_128     matmul:checker/baselines/matmul_tiled.cu          30     16
REGISTRY
fail=0 checks=0
same() { # same WHAT EXPECTED ARGS...: workbook lessons ARGS prints EXPECTED and exits 0
  local what=$1 want=$2 got rc
  shift 2
  checks=$((checks + 1))
  got=$("$wb" lessons "$@" 2>&1); rc=$?
  [ $rc -eq 0 ] && [ "$got" = "$want" ] && return
  echo "  FAILED: $what (workbook lessons $*: exit $rc):"; diff <(echo "$want") <(echo "$got") | sed 's/^/    /'; fail=1
}
refused() { # refused WHAT SENTENCE ARGS...: exit 2, nothing on stdout, one line on stderr holding SENTENCE
  local what=$1 want=$2 rc
  shift 2
  checks=$((checks + 1))
  "$wb" lessons "$@" > "$T/out" 2> "$T/err"; rc=$?
  [ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(grep -c '' "$T/err")" = 1 ] && grep -qF -- "$want" "$T/err" && return
  echo "  FAILED: $what (workbook lessons $*: exit $rc, said:)"; sed 's/^/    | /' "$T/out" "$T/err"; fail=1
}

# A handout's registry, against the awk reader's output: each lesson's fields, in the order of
# "${fields[@]}".
rows="2 02_tiled_matmul matmul_tiled matmul checker/baselines/matmul_naive.cu 25 9 matmul
6 06_coarsening transpose_coarsened transpose_32x8 checker/baselines/transpose_swizzled.cu 25 8 transpose
8 08_sgemm sgemm_blocked matmul_128 checker/baselines/matmul_tiled.cu 30 16 matmul"
same "every field, by name" "$rows" --registry "$handout" "${fields[@]}"
same "fields in any order, again" "25 2 25
25 6 25
30 8 30" --registry "$handout" points number points
same "one lesson" "06_coarsening transpose checker/baselines/transpose_swizzled.cu" \
  --registry "$handout" --lesson 6 folder baseline_family baseline
same "the points added up" 80 --registry "$handout" --sum points
same "the numbers added up" 16 --registry "$handout" --sum number
# make's variables: each of those fields as lessonN_FIELD := VALUE.
same "make's variables" "# $handout as make's variables (workbook lessons --make)
LESSONS := 2 6 8
TOTAL_POINTS := 80
$(awk -v names="${fields[*]}" 'BEGIN { n = split(names, name, " ") }
  { for (i = 2; i <= n; i++) print "lesson" $1 "_" name[i] " := " $i }' <<<"$rows")" --registry "$handout" --make
same "a subset: the header kept, a baseline moved, its family kept" "$(sed -n '/^#/p' "$handout")
6        06_coarsening     transpose_coarsened transpose_32x8 transpose:checker/baselines/transpose_swizzled.cu 25     8
8        08_sgemm          sgemm_blocked       matmul_128     matmul:checker/baselines/matmul_tiled_copy.cu     30     16" \
  --registry "$handout" --subset 8=checker/baselines/matmul_tiled_copy.cu 6
same "every lesson: the registry as it is" "$(cat "$handout")" --registry "$handout" --subset 8 6 2

# The real registry (or a handout's, in one): each option agrees with the others, and make reads
# what --make says.
all=$("$wb" lessons "${fields[@]}")
same "the sum of the points" "$(awk '{ s += $6 } END { print s }' <<<"$all")" --sum points
while read -r n line; do
  same "lesson $n alone" "$n $line" --lesson "$n" "${fields[@]}"
done <<<"$all"
same "build/lessons.mk up to date" "$(cat build/lessons.mk)" --make

# Bad input.
printf '1 01_a k nosuch a.cu 5 4\n' > "$T/bad-family"
printf "1 01_a k matmul a\$b.cu 5 4\n" > "$T/dollar"
refused "an unknown field" "There is no field 'nope' in a lesson of lessons/registry" number nope
refused "an unknown lesson" "There is no lesson '4': the lessons are 2, 6, 8" --registry "$handout" --lesson 4 folder
refused "a lesson that is no number" "There is no lesson 'x'" --lesson x folder
refused "a registry that does not parse" "$T/bad-family line 1: unknown family 'nosuch'" --registry "$T/bad-family" number
refused "a registry that is not there" "cannot read $T/none" --registry "$T/none" number
refused "a sum of names" "--sum adds up number or points, not a lesson's folder" --sum folder
refused "a name make cannot take" "lesson 1's baseline 'a\$b.cu' has a character make cannot take" --registry "$T/dollar" --make
refused "a new baseline that is no .cu file" "baseline 'a.c' should be a .cu file" --subset 1=a.c
refused "a subset of no lesson" "There is no lesson '99'" --subset 1 99
refused "no field" "usage: workbook lessons" --lesson 1
refused "an unknown option" "usage: workbook lessons" --sums points

[ $fail -eq 0 ] && echo "lessons: workbook lessons passed $checks checks"
exit $fail
