"""AES-256 in pure Python, encryption direction only, with the two modes consumption payloads use.

The SDK is standard library only, and the standard library has no AES. Payloads are a few hundred
bytes, so a table-free implementation is fast enough (well under a millisecond per message). The
modes need only the forward cipher: CTR (the spec's form, the whole 16-byte block counts up) and GCM
(NIST SP 800-38D with a 96-bit IV).
"""

from __future__ import annotations

from typing import List, Tuple


def _xtime(a: int) -> int:
    a <<= 1
    return (a ^ 0x11B) if a & 0x100 else a


def _gf_mul(a: int, b: int) -> int:
    result = 0
    while b:
        if b & 1:
            result ^= a
        a = _xtime(a)
        b >>= 1
    return result


def _make_sbox() -> List[int]:
    sbox = [0] * 256
    for value in range(256):
        # The multiplicative inverse in GF(2^8) (0 maps to 0), then the affine transform.
        inverse = 0
        if value:
            inverse = next(x for x in range(1, 256) if _gf_mul(value, x) == 1)
        s = inverse
        for shift in range(1, 5):
            s ^= ((inverse << shift) | (inverse >> (8 - shift))) & 0xFF
        sbox[value] = s ^ 0x63
    return sbox


_SBOX = _make_sbox()
_MUL2 = [_xtime(x) & 0xFF for x in range(256)]


class Aes256:
    """The AES-256 block cipher (encryption only)."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("AES-256 needs a 32-byte key")
        words = [list(key[i : i + 4]) for i in range(0, 32, 4)]
        rcon = 1
        for i in range(8, 60):
            word = list(words[i - 1])
            if i % 8 == 0:
                word = [_SBOX[b] for b in word[1:] + word[:1]]
                word[0] ^= rcon
                rcon = _xtime(rcon) & 0xFF
            elif i % 8 == 4:
                word = [_SBOX[b] for b in word]
            words.append([a ^ b for a, b in zip(words[i - 8], word)])
        self._round_keys = [sum(words[4 * r : 4 * r + 4], []) for r in range(15)]

    def encrypt_block(self, block: bytes) -> bytes:
        state = [b ^ k for b, k in zip(block, self._round_keys[0])]
        for round_index in range(1, 15):
            # SubBytes and ShiftRows together: column c takes row r from column (c + r) mod 4.
            s = [_SBOX[state[((c + r) % 4) * 4 + r]] for c in range(4) for r in range(4)]
            if round_index < 14:
                mixed = []
                for c in range(4):
                    a0, a1, a2, a3 = s[4 * c : 4 * c + 4]
                    total = a0 ^ a1 ^ a2 ^ a3
                    mixed += [
                        a0 ^ total ^ _MUL2[a0 ^ a1],
                        a1 ^ total ^ _MUL2[a1 ^ a2],
                        a2 ^ total ^ _MUL2[a2 ^ a3],
                        a3 ^ total ^ _MUL2[a3 ^ a0],
                    ]
                s = mixed
            state = [b ^ k for b, k in zip(s, self._round_keys[round_index])]
        return bytes(state)


def _keystream_xor(cipher: Aes256, counter: int, data: bytes, counter_bits: int) -> Tuple[bytes, int]:
    out = bytearray()
    high = counter >> counter_bits << counter_bits
    mask = (1 << counter_bits) - 1
    for offset in range(0, len(data), 16):
        stream = cipher.encrypt_block(counter.to_bytes(16, "big"))
        chunk = data[offset : offset + 16]
        out += bytes(a ^ b for a, b in zip(chunk, stream))
        counter = high | ((counter + 1) & mask)
    return bytes(out), counter


def ctr_transform(key: bytes, iv: bytes, data: bytes) -> bytes:
    """AES-256-CTR as OpenSSL and Node do it: the 16-byte IV is a big-endian counter."""
    if len(iv) != 16:
        raise ValueError("AES-CTR needs a 16-byte IV")
    return _keystream_xor(Aes256(key), int.from_bytes(iv, "big"), data, 128)[0]


_GCM_R = 0xE1 << 120


def _ghash_mul(x: int, h: int) -> int:
    result = 0
    for bit in range(127, -1, -1):
        if (x >> bit) & 1:
            result ^= h
        h = (h >> 1) ^ _GCM_R if h & 1 else h >> 1
    return result


def _ghash(h: int, aad: bytes, ciphertext: bytes) -> int:
    y = 0
    for data in (aad, ciphertext):
        for offset in range(0, len(data), 16):
            block = data[offset : offset + 16].ljust(16, b"\0")
            y = _ghash_mul(y ^ int.from_bytes(block, "big"), h)
    lengths = (len(aad) * 8) << 64 | (len(ciphertext) * 8)
    return _ghash_mul(y ^ lengths, h)


def gcm_seal(key: bytes, iv: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """AES-256-GCM with a 12-byte IV: returns ciphertext ‖ 16-byte tag."""
    if len(iv) != 12:
        raise ValueError("AES-GCM here takes a 12-byte IV")
    cipher = Aes256(key)
    h = int.from_bytes(cipher.encrypt_block(bytes(16)), "big")
    j0 = int.from_bytes(iv + b"\0\0\0\1", "big")
    ciphertext, _ = _keystream_xor(cipher, (j0 & ~0xFFFFFFFF) | ((j0 + 1) & 0xFFFFFFFF), plaintext, 32)
    tag = _ghash(h, aad, ciphertext) ^ int.from_bytes(cipher.encrypt_block(j0.to_bytes(16, "big")), "big")
    return ciphertext + tag.to_bytes(16, "big")
