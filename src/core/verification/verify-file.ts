import { createHash } from "node:crypto";
import type { CoreDeps } from "../deps.js";
import type { AuditExportCertified } from "./audit-code.js";
import { certificatePdfSha256 } from "./cert-code.js";
import { checkExportChain } from "./export-chain.js";
import type { CodeVerdict } from "./verify-code.js";

/**
 * The file that came with a genuine code, matched to it as it streams in. A certificate's PDF is
 * matched by its SHA-256, kept with the code when the PDF was issued: one changed byte and it is
 * not the certificate's file. An audit export's CSV is re-chained (export-chain.ts) and must end
 * where the code says: the same rows, seq and last hash.
 */
export type FileCheck = { matches: true; line: string } | { matches: false; line: string; badSeq?: string };

type GenuineVerdict = Extract<CodeVerdict, { genuine: true }>;

export async function checkFileOfCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  verdict: GenuineVerdict,
  file: AsyncIterable<Buffer>,
): Promise<FileCheck> {
  if (verdict.kind === "audit") return checkExport(verdict.certified, file);
  const hash = createHash("sha256");
  for await (const chunk of file) hash.update(chunk);
  const kept = await certificatePdfSha256(deps, verdict.code);
  if (kept === null)
    return {
      matches: false,
      line: "No fingerprint of this certificate's PDF was kept, so the file cannot be matched.",
    };
  return hash.digest("hex") === kept
    ? { matches: true, line: "This PDF is the one issued with this code, unaltered." }
    : {
        matches: false,
        line: "This PDF is not the one issued with this code (it was changed, or is another file).",
      };
}

async function checkExport(certified: AuditExportCertified, file: AsyncIterable<Buffer>): Promise<FileCheck> {
  const chain = await checkExportChain(file);
  if (!chain.unaltered) {
    const where = chain.badSeq
      ? `the first row that does not match is seq ${chain.badSeq}`
      : "the file is not an export";
    return {
      matches: false,
      line: `Altered: ${where}: ${chain.why}.`,
      ...(chain.badSeq && { badSeq: chain.badSeq }),
    };
  }
  if (chain.rows > 0 && chain.firstSeq !== certified.firstSeq)
    return {
      matches: false,
      line: `Altered: the first row that does not match is seq ${chain.firstSeq}: the export certified starts at seq ${certified.firstSeq ?? "none"}.`,
      badSeq: String(chain.firstSeq),
    };
  const certifiedLast = certified.lastSeq ?? (certified.firstSeq ?? 1) - 1;
  const fileLast = chain.lastSeq ?? certifiedLast;
  if (fileLast < certifiedLast) {
    const missing = String(fileLast + 1);
    return {
      matches: false,
      line: `Altered: the first row that does not match is seq ${missing}: the file ends before it (${chain.rows} of ${certified.rows} rows).`,
      badSeq: missing,
    };
  }
  if (fileLast > certifiedLast) {
    const extra = String(certifiedLast + 1);
    return {
      matches: false,
      line: `Altered: the first row that does not match is seq ${extra}: the export certified ends before it (${certified.rows} rows).`,
      badSeq: extra,
    };
  }
  if (chain.rows !== certified.rows || (chain.rows > 0 && chain.lastHash !== certified.lastHash))
    return {
      matches: false,
      line: `Altered: the chain holds together but ends in ${chain.lastHash}, not the certified ${certified.lastHash}: rows were re-computed after a change.`,
    };
  return {
    matches: true,
    line: `The file is unaltered: ${chain.rows} ${chain.rows === 1 ? "row" : "rows"}, the chain re-computes and ends in the certified hash.`,
  };
}
