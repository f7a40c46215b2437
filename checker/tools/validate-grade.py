#!/usr/bin/env python3
"""Checks what `make grade` wrote: results.json against the shape Gradescope's autograder reads
(top-level score and output; tests with name, number, score, max_score, status, output: one test
per case of each lesson, numbered "lesson.case", ".0" for a lesson that did not run; the speed
points the CPU emulator gave, and only those, tagged "provisional" and counted in the output) and
junit.xml with a JUnit XML parser (one testsuite per lesson). Usage: validate-grade.py DIR EXPECTED_SCORE EXPECTED_TOTAL"""
import json
import sys
import xml.etree.ElementTree as ET

TEST_KEYS = {"name": str, "number": str, "score": (int, float), "max_score": (int, float),
             "status": str, "output": str}
OPTIONAL_TEST_KEYS = {"tags", "extra_data"}


def fail(why):
    print(f"grade results: 0 passed, 1 failed ({why})")
    sys.exit(1)


def main():
    folder, want_score, want_total = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    with open(f"{folder}/results.json") as f:
        results = json.load(f)
    if not isinstance(results, dict) or not isinstance(results.get("tests"), list):
        fail("results.json has no tests list")
    if set(results) - {"score", "output", "tests", "execution_time", "visibility", "stdout_visibility"}:
        fail(f"unknown top-level keys {set(results)}")
    for t in results["tests"]:
        if set(t) - set(TEST_KEYS) - OPTIONAL_TEST_KEYS:
            fail(f"test {t.get('name')!r}: unknown keys {set(t) - set(TEST_KEYS) - OPTIONAL_TEST_KEYS}")
        for key, kind in TEST_KEYS.items():
            if not isinstance(t.get(key), kind):
                fail(f"test {t.get('name')!r}: {key} missing or not {kind}")
        if t["status"] not in ("passed", "failed") or not 0 <= t["score"] <= t["max_score"]:
            fail(f"test {t['name']!r}: bad status or score")
        # The emulator's speed case is named for what it counts; its points are provisional.
        emulator_speed = ": memory traffic " in t["name"] and t["score"] > 0
        if ("provisional" in t.get("tags", [])) != emulator_speed or \
                (emulator_speed and t.get("extra_data") != {"provisional": True, "judge": "emulator"}):
            fail(f"test {t['name']!r}: tagged {t.get('tags')}, where only the emulator's speed points are provisional")
    provisional = sum(t["score"] for t in results["tests"] if "provisional" in t.get("tags", []))
    if provisional and f"{provisional:g} of the points are provisional" not in results.get("output", ""):
        fail(f"{provisional:g} provisional points not said in the output: {results.get('output')!r}")
    numbers = [t["number"] for t in results["tests"]]
    if len(set(numbers)) != len(numbers) or not all(n.count(".") == 1 for n in numbers):
        fail(f"test numbers are not unique lesson.case pairs: {numbers}")
    lessons = {n.split(".")[0] for n in numbers}
    score = sum(t["score"] for t in results["tests"])
    total = sum(t["max_score"] for t in results["tests"])
    if results.get("score") != score or (score, total) != (want_score, want_total):
        fail(f"score {results.get('score')} (tests add to {score}/{total}), expected {want_score}/{want_total}")
    root = ET.parse(f"{folder}/junit.xml").getroot()
    suites = root.findall("testsuite")
    cases = root.findall("testsuite/testcase")
    if root.tag != "testsuites" or len(suites) != len(lessons) or not cases:
        fail(f"junit.xml: {len(suites)} testsuites, {len(cases)} testcases")
    failures = len(root.findall("testsuite/testcase/failure"))
    if (failures == 0) != (score == total):
        fail(f"junit.xml has {failures} failures for a score of {score}/{total}")
    print(f"grade results: 1 passed, 0 failed ({len(lessons)} lessons, {len(results['tests'])} graded cases, "
          f"{len(cases)} JUnit test cases, "
          f"score {score:g}/{total:g})")


main()
