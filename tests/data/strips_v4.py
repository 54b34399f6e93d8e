#!/usr/bin/env python3
"""Makes a GEOM kind version 4 file (strips layout without block extents, FORMAT.md 4.6) from a
version 5 one: GSTR's 24-byte block records lose their X extent (16 bytes) and GSTR is stored raw;
every other section keeps its stored bytes. Version 4 is no longer written but still read: this
keeps a golden file of it (tests/data/make_golden.sh). Needs the zstd command.
Usage: strips_v4.py IN_V5.geo OUT_V4.geo"""
import struct
import subprocess
import sys

M = 2**64 - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def rnd(acc, lane):
    return (rotl((acc + lane * P2) & M, 31) * P1) & M


def merge(acc, val):
    return ((acc ^ rnd(0, val)) * P1 + P4) & M


def xxh64(data, seed=0):
    """XXH64 from the public specification (the same hash as formats/xxhash64.cpp)."""
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]
        while i + 32 <= n:
            for k in range(4):
                v[k] = rnd(v[k], struct.unpack_from('<Q', data, i + 8 * k)[0])
            i += 32
        acc = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for k in range(4):
            acc = merge(acc, v[k])
    else:
        acc = (seed + P5) & M
    acc = (acc + n) & M
    while i + 8 <= n:
        acc = (rotl(acc ^ rnd(0, struct.unpack_from('<Q', data, i)[0]), 27) * P1 + P4) & M
        i += 8
    if i + 4 <= n:
        acc = (rotl(acc ^ (struct.unpack_from('<I', data, i)[0] * P1 & M), 23) * P2 + P3) & M
        i += 4
    while i < n:
        acc = (rotl(acc ^ (data[i] * P5 & M), 11) * P1) & M
        i += 1
    acc ^= acc >> 33
    acc = (acc * P2) & M
    acc ^= acc >> 29
    acc = (acc * P3) & M
    return acc ^ (acc >> 32)


def main():
    src = open(sys.argv[1], 'rb').read()
    kind, version, count = struct.unpack_from('<4sII', src, 12)
    if kind != b'GEOM' or version != 5:
        sys.exit('%s: not a GEOM version 5 file' % sys.argv[1])
    sections = []
    for k in range(count):
        sid, codec, off, stored, raw, checksum = struct.unpack_from('<4sIQQQQ', src, 64 + 48 * k)
        data = src[off:off + stored]
        if sid == b'GSTR':
            if codec == 1:
                data = subprocess.run(['zstd', '-d', '-c'], input=data, check=True,
                                      stdout=subprocess.PIPE).stdout
            elif codec != 0:
                sys.exit('GSTR: unexpected codec %d' % codec)
            size, strips, blocks = struct.unpack_from('<fII', data, 0)
            head = 16 + 16 * strips
            body = b''.join(data[head + 24 * b:head + 24 * b + 16] for b in range(blocks))
            data = data[:head] + body
            codec, raw = 0, len(data)
        sections.append([sid, codec, data, raw])
    table_end = 64 + 48 * len(sections)
    out = bytearray(table_end)
    entries = []
    for sid, codec, data, raw in sections:
        out += b'\0' * (-len(out) % 16)
        entries.append((sid, codec, len(out), len(data), raw, xxh64(bytes(data))))
        out += data
    out[0:64] = src[0:64]
    struct.pack_into('<II', out, 16, 4, len(sections))
    struct.pack_into('<Q', out, 24, len(out))
    struct.pack_into('<Q', out, 40, 0)
    for k, (sid, codec, off, stored, raw, checksum) in enumerate(entries):
        struct.pack_into('<4sIQQQQQ', out, 64 + 48 * k, sid, codec, off, stored, raw, checksum, 0)
    struct.pack_into('<Q', out, 40, xxh64(bytes(out[0:table_end])))
    open(sys.argv[2], 'wb').write(out)


main()
