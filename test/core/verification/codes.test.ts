import { Readable } from "node:stream";
import { expect, it } from "vitest";
import type { CommandContext } from "../../../src/core/command.js";
import { issueAuditCode, verifyAuditCode } from "../../../src/core/verification/audit-code.js";
import { issueCertCode, recordCertificatePdf } from "../../../src/core/verification/cert-code.js";
import { verifyAnyCode } from "../../../src/core/verification/verify-code.js";
import { verifyCommand } from "../../../src/core/verification/verify-command.js";
import { checkFileOfCode } from "../../../src/core/verification/verify-file.js";
import { editCell, makeExport } from "../../support/audit-export.js";
import { replyText } from "../../support/core-harness.js";
import { channel, forEachStore, stubDeps, viewer } from "../support.js";

/**
 * Audit export codes bind the range, the rows and the last hash; `verify` names them in full. A
 * file that came with a code is matched to it: the export re-chained and compared, a certificate's
 * PDF by the SHA-256 kept at issue.
 */
const SETTINGS = { cases: { certKeyHex: "cd".repeat(32) } };
const AUDIT_CODE = /^OPS-AUDIT-[A-Z2-7]{10}-[A-Z2-7]{26}$/;

const verify = (d: ReturnType<typeof stubDeps>, code: string) =>
  verifyCommand.run({
    invocation: { kind: "command", actor: viewer, conversation: channel, text: `verify ${code}` },
    args: [code],
    role: "viewer",
    deps: d,
    commands: [],
  } satisfies CommandContext);

const certifiedOf = (made: ReturnType<typeof makeExport>) => ({
  v: 1 as const,
  from: "2026-11-01",
  to: "2026-11-02",
  rows: made.rows,
  firstSeq: made.firstSeq,
  lastSeq: made.lastSeq,
  lastHash: made.lastHash,
  issuedAt: "2026-11-03T08:00:00.000Z",
});

const fileOf = (text: string | Uint8Array) => Readable.from([Buffer.from(text)]);

forEachStore("verification codes", (get) => {
  const deps = () => stubDeps({ store: get().store, clock: get().clock, settings: SETTINGS });

  it("an audit code verifies and names the range, the rows and the last hash in full; a changed one does not", async () => {
    const d = deps();
    const made = makeExport(12);
    const code = await issueAuditCode(d, certifiedOf(made));
    expect(code).toMatch(AUDIT_CODE);
    expect(await verifyAuditCode(d, code.toLowerCase())).toEqual({
      genuine: true,
      certified: certifiedOf(made),
    });
    expect(replyText(await verify(d, code))).toBe(
      `Genuine: an audit export of 2026-11-01..2026-11-02, 12 rows, last hash ${made.lastHash}.`,
    );
    const altered = `${code.slice(0, -1)}${code.endsWith("A") ? "B" : "A"}`;
    expect(replyText(await verify(d, altered))).toMatch(/^Not genuine: the code does not match/);
    expect(replyText(await verify(d, `OPS-AUDIT-AAAAAAAAAA-${"A".repeat(26)}`))).toMatch(
      /^Not genuine: no audit export was issued/,
    );
    expect(replyText(await verify(d, "hello"))).toMatch(/^Not genuine: it is not a verification code/);
    // Another key (another deployment) does not vouch for this one's codes.
    const other = stubDeps({ store: get().store, settings: { cases: { certKeyHex: "ef".repeat(32) } } });
    expect((await verifyAnyCode(other, code)).genuine).toBe(false);
  });

  it("an export is matched to its code: unaltered, an edited row named, a cut or a longer file named", async () => {
    const d = deps();
    const made = makeExport(12, { firstSeq: 501, prevHash: "12".repeat(32) });
    const verdict = await verifyAnyCode(d, await issueAuditCode(d, certifiedOf(made)));
    if (!verdict.genuine) throw new Error("not genuine");
    const check = (text: string) => checkFileOfCode(d, verdict, fileOf(text));
    expect(await check(made.csv)).toMatchObject({ matches: true, line: expect.stringMatching(/unaltered/) });
    expect(await check(editCell(made, 505, 6, "0.01"))).toMatchObject({ matches: false, badSeq: "505" });
    const cut = made.lines
      .slice(0, -2)
      .map((l) => `${l}\n`)
      .join("");
    expect(await check(cut)).toMatchObject({ matches: false, badSeq: "511" });
    const longer = makeExport(13, { firstSeq: 501, prevHash: "12".repeat(32) });
    expect(await check(longer.csv)).toMatchObject({ matches: false, badSeq: "513" });
    const later = makeExport(11, { firstSeq: 502, prevHash: made.lines[1]?.slice(-64) ?? "" });
    expect(await check(later.csv)).toMatchObject({ matches: false, badSeq: "502" });
    const recomputed = makeExport(12, { firstSeq: 501, prevHash: "12".repeat(32), day: "2026-11-01" });
    expect(await check(recomputed.csv)).toMatchObject({
      matches: false,
      line: expect.stringMatching(/re-computed/),
    });
  });

  it("a certificate's PDF is matched by the SHA-256 kept at issue; another file is not it", async () => {
    const d = deps();
    const code = await issueCertCode(d, {
      v: 1,
      address: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
      issuedAt: "2026-11-03T08:00:00.000Z",
      level: "high",
      score: "7.5",
      scale: "0–10",
      clientOrderId: "A00000000000001",
      rawSha256: null,
      caseId: null,
      caseState: null,
    });
    const verdict = await verifyAnyCode(d, code);
    if (!verdict.genuine) throw new Error("not genuine");
    const pdf = Buffer.from("%PDF-1.7 the certificate");
    expect(await checkFileOfCode(d, verdict, fileOf(pdf))).toMatchObject({
      matches: false,
      line: expect.stringMatching(/No fingerprint/),
    });
    const { createHash } = await import("node:crypto");
    await recordCertificatePdf(d, code, createHash("sha256").update(pdf).digest("hex"));
    expect(await checkFileOfCode(d, verdict, fileOf(pdf))).toMatchObject({ matches: true });
    expect(await checkFileOfCode(d, verdict, fileOf("%PDF-1.7 the certificatE"))).toMatchObject({
      matches: false,
    });
    // A fingerprint changed in the store is not trusted.
    const serial = code.split("-")[2] ?? "";
    await get().store.set(
      `cert-pdf:${serial}`,
      JSON.stringify({ sha256: "00".repeat(32), mac: "A".repeat(26) }),
    );
    expect(await checkFileOfCode(d, verdict, fileOf(pdf))).toMatchObject({ matches: false });
  });
});
