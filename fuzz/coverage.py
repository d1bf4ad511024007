#!/usr/bin/env python3
"""Sums up libFuzzer's `-print_coverage=1` report by source file.

    coverage.py REPORT PATH_FRAGMENT... [--functions]

For every function whose file contains one of the fragments (`src/diff/apply/`,
`src/diff/align.rs`), libFuzzer's report says whether the inputs reached it and how many of
its edges (coverage counters) they took; this prints, per file, the functions reached and the
edges taken, and with --functions each function (+ reached, - not).
"""
import collections
import re
import sys

LINE = re.compile(r"^(UNCOVERED_FUNC|COVERED_FUNC): hits: \d+ edges: (\d+)/(\d+) (.*) (\S+):(\d+)$")


def main(argv):
    show = "--functions" in argv
    args = [arg for arg in argv if arg != "--functions"]
    report, fragments = args[0], args[1:]
    files = collections.defaultdict(lambda: [0, 0, 0, 0])
    functions = []
    with open(report, errors="replace") as text:
        for line in text:
            match = LINE.match(line.rstrip("\n"))
            if not match:
                continue
            kind, taken, edges, name, path, number = match.groups()
            if not any(fragment in path for fragment in fragments):
                continue
            path = path[path.find("src/"):]
            entry = files[path]
            entry[0] += kind == "COVERED_FUNC"
            entry[1] += 1
            entry[2] += int(taken)
            entry[3] += int(edges)
            functions.append((path, int(number), kind == "COVERED_FUNC", taken, edges, name))
    total = [0, 0, 0, 0]
    for path, entry in sorted(files.items()):
        print(f"{path:30} functions {entry[0]:3}/{entry[1]:<3} edges {entry[2]:5}/{entry[3]:<5}")
        total = [a + b for a, b in zip(total, entry)]
    print(f"{'total':30} functions {total[0]:3}/{total[1]:<3} edges {total[2]:5}/{total[3]:<5}")
    if show:
        for path, number, reached, taken, edges, name in sorted(functions):
            print(f"  {'+' if reached else '-'} {path}:{number} {taken}/{edges} {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
