import type { CoreDeps } from "../deps.js";
import { type AuditExportCertified, verifyAuditCode } from "./audit-code.js";
import { type Certified, verifyCertCode } from "./cert-code.js";

/**
 * The one answer to "is this code genuine?", for the chat's `verify` and the `/verify` page alike:
 * a certificate code (`OPS-CERT-…`) or an audit export code (`OPS-AUDIT-…`), and what it certifies,
 * nothing more.
 */
export type CodeVerdict =
  | { kind: "certificate"; genuine: true; code: string; certified: Certified }
  | { kind: "audit"; genuine: true; code: string; certified: AuditExportCertified }
  | { kind: "certificate" | "audit" | "unknown"; genuine: false; why: string };

/** Codes are short; anything much longer is not one, and is not repeated back whole. */
const MAX_CODE_LENGTH = 64;

export async function verifyAnyCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  given: string,
): Promise<CodeVerdict> {
  const code = given.trim().toUpperCase();
  if (code.length > MAX_CODE_LENGTH)
    return { kind: "unknown", genuine: false, why: "it is not a verification code (far too long)" };
  if (code.startsWith("OPS-CERT-")) {
    const verified = await verifyCertCode(deps, code);
    return verified.genuine
      ? { kind: "certificate", genuine: true, code, certified: verified.certified }
      : { kind: "certificate", genuine: false, why: verified.why };
  }
  if (code.startsWith("OPS-AUDIT-")) {
    const verified = await verifyAuditCode(deps, code);
    return verified.genuine
      ? { kind: "audit", genuine: true, code, certified: verified.certified }
      : { kind: "audit", genuine: false, why: verified.why };
  }
  return {
    kind: "unknown",
    genuine: false,
    why: "it is not a verification code (OPS-CERT-… or OPS-AUDIT-…)",
  };
}

export interface VerdictFact {
  label: string;
  value: string;
}

/** What a genuine code certifies, as labelled facts (the page lists them; the chat line says them). */
export function factsOf(verdict: CodeVerdict): VerdictFact[] {
  if (!verdict.genuine) return [];
  if (verdict.kind === "certificate") {
    const c = verdict.certified;
    return [
      { label: "Address", value: c.address },
      { label: "Certified at", value: c.issuedAt },
      { label: "Risk level", value: c.level },
      { label: "Risk score", value: `${c.score ?? "none"} on the provider's scale ${c.scale}` },
      { label: "Screening", value: c.clientOrderId },
      ...(c.caseId ? [{ label: "Case", value: `${c.caseId} (${c.caseState})` }] : []),
      { label: "Raw screening reply SHA-256", value: c.rawSha256 ?? "not kept" },
    ];
  }
  const a = verdict.certified;
  return [
    { label: "Range", value: rangeOf(a) },
    { label: "Rows", value: String(a.rows) },
    ...(a.firstSeq !== null ? [{ label: "Seq", value: `${a.firstSeq}..${a.lastSeq}` }] : []),
    { label: "Last hash", value: a.lastHash || "none (no rows)" },
    { label: "Issued at", value: a.issuedAt },
  ];
}

const rangeOf = (a: Pick<AuditExportCertified, "from" | "to">): string => `${a.from}..${a.to}`;

/** The chat's one line for a verdict. */
export function verdictLine(verdict: CodeVerdict): string {
  if (!verdict.genuine) return `Not genuine: ${verdict.why}.`;
  if (verdict.kind === "certificate") {
    const c = verdict.certified;
    return `Genuine: certifies ${c.address} at ${c.issuedAt}: risk level ${c.level} (score ${c.score ?? "none"} on ${c.scale}), screening ${c.clientOrderId}${c.caseId ? `, case ${c.caseId} ${c.caseState}` : ""}.`;
  }
  const a = verdict.certified;
  return `Genuine: an audit export of ${rangeOf(a)}, ${a.rows} ${a.rows === 1 ? "row" : "rows"}, last hash ${a.lastHash || "none (no rows)"}.`;
}
