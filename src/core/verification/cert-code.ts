import { z } from "zod";
import { getJson, setJsonIfNotExists } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { CODE_TTL_MS, macMatches, macOf, newSerial } from "./code-mac.js";

/**
 * A certificate's verification code: `OPS-CERT-<serial>-<mac>`. The canonical record of what the
 * certificate states (address, time, risk level, the screening and its reply's SHA-256, the case)
 * is stored under its serial (see code-mac.ts). `verify` recomputes the mac: a changed character,
 * an unknown serial or a record changed in the store is not genuine.
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
/** The SHA-256 of the PDF issued with the code, with its own mac (it is known only once the PDF is built). */
const CERT_PDF_KEY = (serial: string) => `cert-pdf:${serial}`;
const CODE_PATTERN = /^OPS-CERT-([A-Z2-7]{10})-([A-Z2-7]{26})$/;

const pdfDigestSchema = z.object({ sha256: z.string(), mac: z.string() });
const pdfRecord = (serial: string, sha256: string) => ({ kind: "certificate-pdf", serial, sha256 });

/** Stores the record under a fresh serial and answers its code. */
export async function issueCertCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  certified: Certified,
): Promise<string> {
  for (;;) {
    const serial = newSerial();
    if (await setJsonIfNotExists(deps.store, CERT_KEY(serial), certified, CODE_TTL_MS))
      return `OPS-CERT-${serial}-${macOf(deps, certified)}`;
  }
}

const serialOf = (code: string): string | undefined => CODE_PATTERN.exec(code.trim().toUpperCase())?.[1];

/** Keeps the SHA-256 of the PDF issued with `code`, so the PDF itself can be matched to it later. */
export async function recordCertificatePdf(
  deps: Pick<CoreDeps, "store" | "settings">,
  code: string,
  sha256: string,
): Promise<void> {
  const serial = serialOf(code);
  if (serial === undefined) throw new Error("not a certificate code");
  const mac = macOf(deps, pdfRecord(serial, sha256));
  await setJsonIfNotExists(deps.store, CERT_PDF_KEY(serial), { sha256, mac }, CODE_TTL_MS);
}

/**
 * The SHA-256 of the PDF issued with a (genuine) code, or null when none was kept (a certificate
 * made before PDFs were fingerprinted) or the stored one was changed.
 */
export async function certificatePdfSha256(
  deps: Pick<CoreDeps, "store" | "settings">,
  code: string,
): Promise<string | null> {
  const serial = serialOf(code);
  if (serial === undefined) return null;
  const kept = await getJson(deps.store, CERT_PDF_KEY(serial), pdfDigestSchema);
  if (kept === null || !macMatches(deps, pdfRecord(serial, kept.sha256), kept.mac)) return null;
  return kept.sha256;
}

export type VerifiedCert = { genuine: true; certified: Certified } | { genuine: false; why: string };

export async function verifyCertCode(
  deps: Pick<CoreDeps, "store" | "settings">,
  code: string,
): Promise<VerifiedCert> {
  const match = CODE_PATTERN.exec(code.trim().toUpperCase());
  if (!match) return { genuine: false, why: "it is not a certificate code (OPS-CERT-…)" };
  const [, serial = "", mac = ""] = match;
  const certified = await getJson(deps.store, CERT_KEY(serial), certifiedSchema);
  if (certified === null) return { genuine: false, why: "no certificate was issued with this code" };
  if (!macMatches(deps, certified, mac))
    return { genuine: false, why: "the code does not match what was certified (changed or forged)" };
  return { genuine: true, certified };
}
