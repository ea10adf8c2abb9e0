import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { CoreDeps } from "../deps.js";

/**
 * What every verification code (`OPS-CERT-…`, `OPS-AUDIT-…`) is made of: a random serial under
 * which the certified record is stored, and an HMAC-SHA256 with OPS_CERT_KEY (else the key derived
 * from SERVICE_API_KEY; the same on every instance) over the record's canonical JSON, both in
 * base32 (RFC 4648 alphabet, no padding), so a code survives being read aloud or retyped.
 */
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const SERIAL_LENGTH = 10;
const MAC_LENGTH = 26;
/** A code is kept as long as the evidence it certifies is worth checking. */
export const CODE_TTL_MS = 10 * 365 * 24 * 3_600_000;

function base32(bytes: Uint8Array, length: number): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out.slice(0, length);
}

export const newSerial = (): string => base32(randomBytes(8), SERIAL_LENGTH);

/** Keys in a fixed order, no spaces: the bytes the mac covers. */
const canonicalOf = (record: Record<string, unknown>): string =>
  JSON.stringify(Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1))));

export function macOf(deps: Pick<CoreDeps, "settings">, record: Record<string, unknown>): string {
  const key = Buffer.from(deps.settings.cases.certKeyHex, "hex");
  return base32(createHmac("sha256", key).update(canonicalOf(record)).digest(), MAC_LENGTH);
}

/** Constant-time comparison of a given mac with the one the record should have. */
export function macMatches(deps: Pick<CoreDeps, "settings">, record: Record<string, unknown>, mac: string) {
  const expected = Buffer.from(macOf(deps, record));
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
