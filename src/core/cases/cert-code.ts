import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { getJson, setJsonIfNotExists } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";

/**
 * A certificate's verification code: `OPS-CERT-<serial>-<mac>`. The canonical record of what the
 * certificate states (address, time, risk level, the screening and its reply's SHA-256, the case)
 * is stored under its serial; the mac is an HMAC-SHA256 over that record's canonical JSON with
 * OPS_CERT_KEY (else the key derived from SERVICE_API_KEY), the same on every instance. `verify`
 * recomputes it: a changed character, an unknown serial or a record changed in the store is not
 * genuine.
 */
const certifiedSchema = z.object({
  v: z.literal(1),
  address: z.string(),
  issuedAt: z.string(),
  level: z.string(),
  score: z.string().nullable(),
  scale: z.string(),
  clientOrderId: z.string(),
  rawSha256: z.string().nullable(),
  caseId: z.string().nullable(),
  caseState: z.string().nullable(),
});
export type Certified = z.infer<typeof certifiedSchema>;

const CERT_KEY = (serial: string) => `cert:${serial}`;
const CERT_TTL_MS = 10 * 365 * 24 * 3_600_000;
const CODE_PATTERN = /^OPS-CERT-([A-Z2-7]{10})-([A-Z2-7]{26})$/;

/** Keys in a fixed order, no spaces: the bytes the mac covers. */
const canonicalOf = (c: Certified): string =>
  JSON.stringify(Object.fromEntries(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : 1))));

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

function macOf(deps: Pick<CoreDeps, "settings">, certified: Certified): string {
  const { certKeyHex } = deps.settings.cases;
  const mac = createHmac("sha256", Buffer.from(certKeyHex, "hex")).update(canonicalOf(certified)).digest();
  return base32(mac, 26);
}

/** Stores the record under a fresh serial and answers its code. */
export async function issueCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  certified: Certified,
): Promise<string> {
  for (;;) {
    const serial = base32(randomBytes(8), 10);
    if (await setJsonIfNotExists(deps.store, CERT_KEY(serial), certified, CERT_TTL_MS))
      return `OPS-CERT-${serial}-${macOf(deps, certified)}`;
  }
}

export type Verified =
  | { genuine: true; certified: Certified }
  | { genuine: false; why: string; malformed?: true };

export async function verifyCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  code: string,
): Promise<Verified> {
  const match = CODE_PATTERN.exec(code.trim().toUpperCase());
  if (!match) return { genuine: false, why: "it is not a certificate code (OPS-CERT-…)", malformed: true };
  const [, serial = "", mac = ""] = match;
  const certified = await getJson(deps.store, CERT_KEY(serial), certifiedSchema);
  if (certified === null) return { genuine: false, why: "no certificate was issued with this code" };
  const expected = Buffer.from(macOf(deps, certified));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { genuine: false, why: "the code does not match what was certified (changed or forged)" };
  return { genuine: true, certified };
}
