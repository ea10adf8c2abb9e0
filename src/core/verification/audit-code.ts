import { z } from "zod";
import { getJson, setJsonIfNotExists } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { CODE_TTL_MS, macMatches, macOf, newSerial } from "./code-mac.js";

/**
 * An audit export's verification code: `OPS-AUDIT-<serial>-<mac>`, made like a certificate's
 * (code-mac.ts). It binds the export's range (UTC days `YYYY-MM-DD`), its number of rows, the first
 * and last `seq` and the last row's `hash`: with the CSV beside it, anyone can re-compute the chain
 * (export-chain.ts) and see that the file is the one the code was issued for.
 */
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const auditCertifiedSchema = z.object({
  v: z.literal(1),
  from: z.string().regex(DAY),
  to: z.string().regex(DAY),
  rows: z.number().int().nonnegative(),
  firstSeq: z.number().int().nullable(),
  lastSeq: z.number().int().nullable(),
  lastHash: z.string(),
  issuedAt: z.string(),
});
export type AuditExportCertified = {
  v: 1;
  from: string;
  to: string;
  rows: number;
  firstSeq: number | null;
  lastSeq: number | null;
  lastHash: string;
  issuedAt: string;
};

const AUDIT_KEY = (serial: string) => `audit-code:${serial}`;
const CODE_PATTERN = /^OPS-AUDIT-([A-Z2-7]{10})-([A-Z2-7]{26})$/;

/** Stores the record under a fresh serial and answers its code. */
export async function issueAuditCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  c: AuditExportCertified,
): Promise<string> {
  const certified = auditCertifiedSchema.parse(c);
  for (;;) {
    const serial = newSerial();
    if (await setJsonIfNotExists(deps.store, AUDIT_KEY(serial), certified, CODE_TTL_MS))
      return `OPS-AUDIT-${serial}-${macOf(deps, certified)}`;
  }
}

export type VerifiedAudit =
  | { genuine: true; certified: AuditExportCertified }
  | { genuine: false; why: string };

export async function verifyAuditCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  code: string,
): Promise<VerifiedAudit> {
  const match = CODE_PATTERN.exec(code.trim().toUpperCase());
  if (!match) return { genuine: false, why: "it is not an audit export code (OPS-AUDIT-…)" };
  const [, serial = "", mac = ""] = match;
  const certified = await getJson(deps.store, AUDIT_KEY(serial), auditCertifiedSchema);
  if (certified === null) return { genuine: false, why: "no audit export was issued with this code" };
  if (!macMatches(deps, certified, mac))
    return { genuine: false, why: "the code does not match what was certified (changed or forged)" };
  return { genuine: true, certified };
}
