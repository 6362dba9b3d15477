#!/usr/bin/env python3
"""Regenerates the binary/garbage inputs of corpus/ (fixed seed, so the
files are byte-for-byte reproducible). Run: python3 gen-garbage.py corpus"""
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "corpus"
rng = random.Random(20240611)

def write(name, data):
    with open(f"{out}/{name}", "wb") as f:
        f.write(data)

# 4 KiB of uniformly random bytes (NULs and invalid UTF-8 included).
write("garbage-random-bytes.ttir", bytes(rng.randrange(256) for _ in range(4096)))

# The bytecode magic followed by random bytes: exercises the bytecode reader.
write("garbage-bytecode-magic.mlirbc",
      b"ML\xefR" + bytes(rng.randrange(256) for _ in range(512)))

# Random tokens of the textual format glued together, with NULs sprinkled in.
tokens = ["tt.func", "tt.load", "%", "%0", "=", ":", "->", "{", "}", "(", ")",
          "<", ">", "[", "]", "tensor<", "!tt.ptr<", "f32", "i32", "x", ",",
          "\"tt.reduce\"", "^bb0", "loc(", "#loc", "@f", "\x00", "\n", " "]
write("garbage-token-soup.ttir",
      "".join(rng.choice(tokens) for _ in range(2000)).encode())

# A valid-looking kernel with a NUL byte in the middle of an op.
kernel = (
    "tt.func public @k(%p: !tt.ptr<f32>, %n: i32) {\n"
    "  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>\n"
    "  %s = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>\n"
    "  %q = tt.addptr %s, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>\n"
    "  %v = tt.load %q : tensor<128x!tt.ptr<f32>>\n"
    "  tt.return\n"
    "}\n").encode()
i = kernel.index(b"tt.load")
write("garbage-nul-in-op.ttir", kernel[: i + 4] + b"\x00" + kernel[i + 4 :])

# Invalid UTF-8 in an SSA name, in a string attribute and a stray
# continuation byte: an overlong '/', a lone 0xff, a truncated 3-byte lead.
write("garbage-invalid-utf8.ttir",
      kernel.replace(b"%v = tt.load", b"%v\xc0\xaf = tt.load")
            .replace(b"tt.func public", b"tt.func public \xff\x80")
      + b"// \xe2\x82\n\"\xfe\xfe\"\n")
