#!/bin/bash
# peak_rss_test.sh PEAK_RSS NAVBAKE: peak_rss reports a process's own peak and its exit status.
set -u
peak_rss=$1
navbake=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A process that holds 64 MiB (head reads them into one buffer) peaks above 64 MiB; navbake
# --version peaks near its libraries' few MiB, under the 14 MiB a Python-forked child starts at.
"$peak_rss" "$dir/big" python3 -c 'b = bytearray(64 << 20); b[::4096] = b"x" * len(b[::4096])' ||
    fail "peak_rss python3 exited $?"
read -r big user system < "$dir/big" || fail "no report for python3"
[ "$big" -gt $((64 * 1024)) ] || fail "python3 holding 64 MiB: peak $big KiB"
"$peak_rss" "$dir/small" "$navbake" --version > /dev/null || fail "peak_rss navbake exited $?"
read -r small user system < "$dir/small" || fail "no report for navbake"
[ "$small" -gt 0 ] && [ "$small" -lt $((14 * 1024)) ] || fail "navbake --version: peak $small KiB"
[[ "$user" =~ ^[0-9]+\.[0-9]+$ && "$system" =~ ^[0-9]+\.[0-9]+$ ]] || fail "times '$user' '$system'"

# The exit status passes through; a missing program is 127.
"$peak_rss" "$dir/r" bash -c 'exit 3'
[ $? -eq 3 ] || fail "exit 3 not passed on"
"$peak_rss" "$dir/r" /nonexistent/program 2> /dev/null
[ $? -eq 127 ] || fail "a missing program is not 127"
echo "ok: python3 holding 64 MiB peaks at $big KiB, navbake --version at $small KiB"
