#!/usr/bin/env python3
"""Writes the 3D Fourier reconstruction example's fixed inputs (plain Python, no NumPy):

  orientations.npy  256 random orientations, float32 (256, 3, 3): rotation matrices,
                    row-major, uniformly distributed over SO(3) (Shoemake's random unit
                    quaternions), from Python's random.Random(2026): deterministic.
  blob_table.npy    the Kaiser-Bessel blob of order 0 sampled by squared distance,
                    float32 (TABLE_SIZE,): entry k is I0(ALPHA sqrt(1 - k / (TABLE_SIZE-1)))
                    / I0(ALPHA), the blob at distance RADIUS sqrt(k / (TABLE_SIZE-1)).

Run from this folder: python3 make_inputs.py. RADIUS is not needed here (the table is
indexed by d^2 / RADIUS^2); ALPHA and TABLE_SIZE must match the spec's BLOB_ALPHA and
BLOB_TABLE_SIZE (a table of another length is refused when the spec is read, and one of
another alpha fails verification: the C reference computes its own weights).
"""
import math
import random
import struct

COUNT = 256
ALPHA = 15.0
TABLE_SIZE = 1000


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (repr(tuple(shape)),)
    # magic (6) + version (2) + length (2) + header + newline, padded to a multiple of 64
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def bessel_i0(x):
    q = x * x / 4.0
    term, total, k = 1.0, 1.0, 1
    while term > 1e-17 * total:
        term *= q / (k * k)
        total += term
        k += 1
    return total


def rotation(r):
    # Shoemake: a uniform random unit quaternion (w, x, y, z)
    u1, u2, u3 = r.random(), r.random(), r.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    x, y = a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2)
    z, w = b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3)
    return [
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    ]


def main():
    r = random.Random(2026)
    rot = []
    for _ in range(COUNT):
        rot += rotation(r)
    write_npy("orientations.npy", (COUNT, 3, 3), rot)
    i0a = bessel_i0(ALPHA)
    table = [bessel_i0(ALPHA * math.sqrt(1 - k / (TABLE_SIZE - 1))) / i0a for k in range(TABLE_SIZE)]
    write_npy("blob_table.npy", (TABLE_SIZE,), table)


if __name__ == "__main__":
    main()
