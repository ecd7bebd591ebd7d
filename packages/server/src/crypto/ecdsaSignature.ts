/**
 * An ECDSA signature as node:crypto returns it by default (DER: `SEQUENCE { INTEGER r, INTEGER s }`) turned
 * into the fixed-width `r || s` that JWS uses (RFC 7518 §3.4, "IEEE P1363"), each integer `size` bytes.
 *
 * Why not `sign(…, { key, dsaEncoding: 'ieee-p1363' })`: with a key in an options object node:crypto
 * re-examines the key on every call, and the ES256 signature costs ~38 µs instead of ~18 µs with the
 * `KeyObject` passed alone (Node 24, this VM; docs/performance-http.md, "Round 3"). The conversion is a
 * few byte copies.
 */
export function derToP1363(der: Buffer, size: number): Buffer {
  let offset = 2;
  if (der[0] !== 0x30) throw new Error('Not a DER ECDSA signature');
  if ((der[1]! & 0x80) !== 0) offset = 2 + (der[1]! & 0x7f);
  const out = Buffer.alloc(2 * size);
  for (let k = 0; k < 2; k++) {
    if (der[offset] !== 0x02) throw new Error('Not a DER ECDSA signature');
    let length = der[offset + 1]!;
    let start = offset + 2;
    offset = start + length;
    // DER integers are signed: a leading zero byte keeps a high bit from reading as negative.
    while (length > size && der[start] === 0) {
      start++;
      length--;
    }
    if (length > size || offset > der.length) throw new Error('Not a DER ECDSA signature');
    der.copy(out, k * size + size - length, start, start + length);
  }
  return out;
}
