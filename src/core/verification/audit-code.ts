import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { getJson, setJsonIfNotExists } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";

/**
 * An audit export's code: `OPS-AUDIT-<serial>-<mac>`. What the export certifies (its range, rows,
 * first and last seq, last hash) is stored under the serial; the mac is an HMAC-SHA256 of that
 * record's canonical JSON with OPS_CERT_KEY, so a changed code, an unknown serial or a record
 * changed in the store is not genuine.
 */
const certifiedSchema = z.object({
  v: z.literal(1),
  from: z.string(),
  to: z.string(),
  rows: z.number().int().nonnegative(),
  firstSeq: z.number().int().nullable(),
  lastSeq: z.number().int().nullable(),
  lastHash: z.string(),
  issuedAt: z.string(),
});
export type AuditExportCertified = z.infer<typeof certifiedSchema>;

const CODE_KEY = (serial: string) => `audit-code:${serial}`;
const CODE_TTL_MS = 10 * 365 * 24 * 3_600_000;
const CODE_PATTERN = /^OPS-AUDIT-([A-Z2-7]{10})-([A-Z2-7]{26})$/;
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32(bytes: Uint8Array, length: number): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out.slice(0, length);
}

const canonicalOf = (c: AuditExportCertified): string =>
  JSON.stringify(Object.fromEntries(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : 1))));

function macOf(deps: Pick<CoreDeps, "settings">, c: AuditExportCertified): string {
  const key = Buffer.from(deps.settings.cases.certKeyHex, "hex");
  return base32(
    createHmac("sha256", key)
      .update(`audit:${canonicalOf(c)}`)
      .digest(),
    26,
  );
}

export async function issueAuditCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  c: AuditExportCertified,
): Promise<string> {
  for (;;) {
    const serial = base32(randomBytes(8), 10);
    if (await setJsonIfNotExists(deps.store, CODE_KEY(serial), c, CODE_TTL_MS))
      return `OPS-AUDIT-${serial}-${macOf(deps, c)}`;
  }
}

export async function verifyAuditCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  code: string,
): Promise<{ genuine: true; certified: AuditExportCertified } | { genuine: false; why: string }> {
  const match = CODE_PATTERN.exec(code.trim().toUpperCase());
  if (!match) return { genuine: false, why: "it is not an audit export code (OPS-AUDIT-…)" };
  const [, serial = "", mac = ""] = match;
  const certified = await getJson(deps.store, CODE_KEY(serial), certifiedSchema);
  if (certified === null) return { genuine: false, why: "no audit export was issued with this code" };
  const expected = Buffer.from(macOf(deps, certified));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { genuine: false, why: "the code does not match what was exported (changed or forged)" };
  return { genuine: true, certified };
}
