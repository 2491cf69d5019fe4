"""HMAC-SHA256 and a constant-time compare, on MicroPython's hashlib.sha256 and on CPython (same results).

micropython-lib's `hmac` installs with mip on the Pico, but the unix port that
runs the simulator and the tests carries no micropython-lib, and the box
needs only HMAC-SHA256: this small one is the same on every interpreter and
is tested against CPython's `hmac` on the RFC 4231 vectors (tests/core/test_proto.py).
"""

import hashlib

BLOCK = 64      # SHA-256's block size in bytes
SIZE = 32       # digest bytes
KEY_LEN = 32    # the pairing key's length


def hmac_sha256(key, msg):
    """HMAC-SHA256 (RFC 2104) of msg under key, as 32 bytes."""
    if len(key) > BLOCK:
        key = hashlib.sha256(key).digest()
    k = bytearray(BLOCK)
    k[:len(key)] = key
    for i in range(BLOCK):
        k[i] ^= 0x36
    inner = hashlib.sha256(k)
    inner.update(msg)
    d = inner.digest()
    for i in range(BLOCK):
        k[i] ^= 0x36 ^ 0x5C
    outer = hashlib.sha256(k)
    outer.update(d)
    return outer.digest()


def eq(a, b):
    """True when a == b (bytes-like), in a time that depends on their length only."""
    if len(a) != len(b):
        return False
    r = 0
    for i in range(len(a)):
        r |= a[i] ^ b[i]
    return r == 0
