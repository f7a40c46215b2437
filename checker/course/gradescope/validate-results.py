#!/usr/bin/env python3
"""Checks a results.json against Gradescope's autograder format
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): at the top, score (optional
when every test has one), execution_time, output, output_format, test_output_format,
test_name_format, visibility, stdout_visibility, extra_data, tests, leaderboard; each test a
score, a max_score, and optionally name, name_format, number, output, output_format, tags,
visibility, status ("passed" or "failed") and extra_data. Then, if asked, the points: --lesson
N=SCORE/MAX, the tests numbered "N.k" adding up to those, and --score SCORE/MAX for the whole.
Usage: validate-results.py RESULTS.json [--lesson N=SCORE/MAX]... [--score SCORE/MAX]"""
import json
import os
import sys

VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
TOP = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
       "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
TEST = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags",
        "visibility", "extra_data"}


def fail(why):
    print(f"results.json: WRONG: {why}")
    sys.exit(1)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_schema(r):
    if not isinstance(r, dict):
        fail("the top level is not an object")
    if set(r) - TOP:
        fail(f"keys Gradescope does not know at the top: {sorted(set(r) - TOP)}")
    tests = r.get("tests", [])
    if not isinstance(tests, list) or not all(isinstance(t, dict) for t in tests):
        fail("tests is not a list of objects")
    if "score" in r and not number(r["score"]):
        fail(f"score {r['score']!r} is not a number")
    if "score" not in r and (not tests or not all("score" in t for t in tests)):
        fail("no score: neither at the top nor on every test")
    for key in ("output", "test_output_format", "test_name_format", "output_format"):
        if key in r and not isinstance(r[key], str):
            fail(f"{key} is not a string")
    for key in ("visibility", "stdout_visibility"):
        if key in r and r[key] not in VISIBILITY:
            fail(f"{key} {r[key]!r} is none of {sorted(VISIBILITY)}")
    if "extra_data" in r and not isinstance(r["extra_data"], dict):
        fail("extra_data is not an object")
    if "execution_time" in r and not number(r["execution_time"]):
        fail("execution_time is not a number")
    for t in tests:
        name = t.get("name", t.get("number", "?"))
        if set(t) - TEST:
            fail(f"test {name!r}: keys Gradescope does not know: {sorted(set(t) - TEST)}")
        if not number(t.get("max_score")) or ("score" in t and not number(t["score"])):
            fail(f"test {name!r}: score {t.get('score')!r} or max_score {t.get('max_score')!r} is not a number")
        if "score" in t and not 0 <= t["score"] <= t["max_score"]:
            fail(f"test {name!r}: score {t['score']} outside 0..{t['max_score']}")
        for key in ("name", "number", "output"):
            if key in t and not isinstance(t[key], str):
                fail(f"test {name!r}: {key} is not a string")
        if "status" in t and t["status"] not in ("passed", "failed"):
            fail(f"test {name!r}: status {t['status']!r} is neither passed nor failed")
        if "visibility" in t and t["visibility"] not in VISIBILITY:
            fail(f"test {name!r}: visibility {t['visibility']!r} is none of {sorted(VISIBILITY)}")
        if "output_format" in t and t["output_format"] not in FORMATS:
            fail(f"test {name!r}: output_format {t['output_format']!r} is none of {sorted(FORMATS)}")
        if "tags" in t and not (isinstance(t["tags"], list) and all(isinstance(x, str) for x in t["tags"])):
            fail(f"test {name!r}: tags is not a list of strings")
        if "extra_data" in t and not isinstance(t["extra_data"], dict):
            fail(f"test {name!r}: extra_data is not an object")
    numbers = [t.get("number") for t in tests if "number" in t]
    if len(set(numbers)) != len(numbers):
        fail(f"test numbers repeat: {numbers}")
    if "score" in r and tests and all("score" in t for t in tests) and r["score"] != sum(t["score"] for t in tests):
        fail(f"score {r['score']} is not the sum of the tests' scores, {sum(t['score'] for t in tests)}")


def fraction(text, what):
    try:
        score, most = text.split("/")
        return float(score), float(most)
    except ValueError:
        print(f"validate-results.py: {what} {text!r} is not SCORE/MAX")
        sys.exit(2)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("--"):
        print(__doc__)
        sys.exit(2)
    path, want_lessons, want_total = args[0], {}, None
    i = 1
    while i < len(args):
        if args[i] == "--lesson" and i + 1 < len(args) and "=" in args[i + 1]:
            n, frac = args[i + 1].split("=", 1)
            want_lessons[n] = fraction(frac, "--lesson")
        elif args[i] == "--score" and i + 1 < len(args):
            want_total = fraction(args[i + 1], "--score")
        else:
            print(__doc__)
            sys.exit(2)
        i += 2
    if not os.path.isfile(path):
        fail(f"{path} is missing: run_autograder wrote no results (Gradescope would tell the student that the "
             "autograder failed); its output says why")
    try:
        results = json.load(open(path, encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        fail(f"{path} is not JSON: {e}")
    check_schema(results)
    tests = results.get("tests", [])
    for n, (score, most) in want_lessons.items():
        mine = [t for t in tests if str(t.get("number", "")).split(".")[0] == n]
        got = (sum(t.get("score", 0) for t in mine), sum(t["max_score"] for t in mine))
        if not mine or got != (score, most):
            fail(f"lesson {n}: {got[0]:g}/{got[1]:g} in {len(mine)} tests, expected {score:g}/{most:g}")
    total = (results.get("score", sum(t.get("score", 0) for t in tests)), sum(t["max_score"] for t in tests))
    if want_total and total != want_total:
        fail(f"score {total[0]:g}/{total[1]:g}, expected {want_total[0]:g}/{want_total[1]:g}")
    print(f"results.json: ok, Gradescope's format ({len(tests)} tests, score {total[0]:g}/{total[1]:g})")


main()
