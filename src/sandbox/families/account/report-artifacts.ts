import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";

/**
 * The files a statement order produces: a gzipped CSV (`application/gzip`, `.csv.gz`) or a tiny but
 * valid PDF. Contents are deterministic for a given request so tests can compare them.
 */
export interface Artifact {
  bytes: Buffer;
  sha256: string;
  size: number;
  filename: string;
  contentType: string;
}

export interface StatementRequest {
  address: string;
  token_id: string;
  date_from: string;
  date_to: string;
  format: "csv" | "pdf";
}

const DAY_MS = 86_400_000;

/** A handful of operations spread over the period, derived from the request. */
function operations(req: StatementRequest): string[][] {
  const from = Date.parse(`${req.date_from}T00:00:00Z`);
  const to = Date.parse(`${req.date_to}T00:00:00Z`);
  const days = Math.round((to - from) / DAY_MS);
  const count = Math.min(5, days + 1);
  const seed = createHash("sha256").update(JSON.stringify(req)).digest("hex");
  return Array.from({ length: count }, (_, i) => {
    const day = new Date(from + Math.floor((days * i) / Math.max(1, count - 1)) * DAY_MS);
    const txId = createHash("sha256").update(`${seed}:${i}`).digest("hex");
    const amount = ((i + 1) * 1.25).toFixed(6);
    return [day.toISOString().slice(0, 10), txId, i % 2 === 0 ? "in" : "out", amount, req.token_id];
  });
}

export function statementCsv(req: StatementRequest): string {
  const header = ["date", "tx_id", "direction", "amount", "token"];
  return [header, ...operations(req)]
    .map((row) => row.join(","))
    .join("\n")
    .concat("\n");
}

/** A one-page PDF with a correct cross-reference table (offsets computed, not hard-coded). */
export function statementPdf(req: StatementRequest): Buffer {
  const text = `Statement ${req.address} ${req.token_id} ${req.date_from} to ${req.date_to}`;
  const stream = `BT /F1 10 Tf 40 800 Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(body);
  const entries = offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

export function buildArtifact(req: StatementRequest): Artifact {
  const stem = `statement_${req.address}_${req.date_from}_${req.date_to}`;
  const bytes = req.format === "pdf" ? statementPdf(req) : gzipSync(Buffer.from(statementCsv(req), "utf8"));
  return {
    bytes,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    size: bytes.length,
    filename: req.format === "pdf" ? `${stem}.pdf` : `${stem}.csv.gz`,
    contentType: req.format === "pdf" ? "application/pdf" : "application/gzip",
  };
}
