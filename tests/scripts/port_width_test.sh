#!/usr/bin/env bash
# scripts/port_width.sh on one small point: its JSON goes where --json says, or by default to a
# new temporary directory that it names, and never into the build tree.
# Usage: tests/scripts/port_width_test.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
source=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
before=$(find "$build" -maxdepth 1 -newer "$work" -name '*.json' | wc -l)

out=$(cd "$work" && bash "$source/scripts/port_width.sh" --build "$build" --size 32 \
  --arrays 4x4 --buses 32 --json given.json)
grep -qx "wrote $work/given.json" <<<"$out" || { echo "FAIL: --json: $out"; exit 1; }
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r[0]["device"] == "4x4:bus=32", r' \
  "$work/given.json"

out=$(TMPDIR=$work bash "$source/scripts/port_width.sh" --build "$build" --size 32 --arrays 4x4 \
  --buses 32)
written=$(sed -n 's/^wrote //p' <<<"$out")
case "$written" in
  "$work"/port_width.*/port_width.json) ;;
  *) echo "FAIL: default JSON path '$written' is not a new temporary directory"; exit 1 ;;
esac
[ -s "$written" ] || { echo "FAIL: $written is empty"; exit 1; }
after=$(find "$build" -maxdepth 1 -newer "$work" -name '*.json' | wc -l)
[ "$before" = "$after" ] || { echo "FAIL: a JSON file appeared in $build"; exit 1; }
echo "port_width test: passed"
