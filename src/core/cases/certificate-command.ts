import { createActionGroup } from "../actions.js";
import type { CommandDefinition } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { formatEpoch } from "../format.js";
import { actorKey } from "../invocation.js";
import { parseTronAddress } from "../parse/tron-address.js";
import { buttons, code, context, errorReply, file, publicReply, type Reply, text } from "../reply.js";
import { nameOf } from "./case-ops.js";
import { caseOfAddress } from "./case-record.js";
import { eventLine, stateOf } from "./case-render.js";
import { type Certified, issueCode, verifyCode } from "./cert-code.js";
import { buildPdf, type PdfSection } from "./cert-pdf.js";
import { readEvidence, type ScreeningEvidence } from "./evidence.js";

/**
 * `certificate <address>`: a PDF of what the bot knows of the address (the last screening, the
 * deny-list verdict read now, its case and timeline, the SHA-256 of the service's raw screening
 * reply), with a verification code in the message. `verify <code>`: genuine or not, and what it
 * certifies. An address never screened gets a line and a Screen (billed) button, no PDF.
 */
/** The paste check's Screen button (src/core/paste-check/): the same as `screen <address>`. */
const SCREEN_KIND = "paste.screen";

async function neverScreened(deps: CoreDeps, ctx: Parameters<CommandDefinition["run"]>[0], address: string) {
  const line = `${address} was never screened by this bot, so there is nothing to certify. Screen it first (billed).`;
  const { tokens } = await createActionGroup(
    deps.store,
    { conversation: ctx.invocation.conversation, createdBy: ctx.invocation.actor, now: deps.now },
    [{ kind: SCREEN_KIND, payload: { address }, role: "operator" }],
  );
  return publicReply(line, [text(line), buttons({ label: "Screen (billed)", token: tokens[0] ?? "" })]);
}

/** The deny-list verdict read now (free open lookup); a failed read is stated as such. */
async function denyList(deps: CoreDeps, address: string): Promise<{ line: string; readAt: string }> {
  const readAt = new Date(deps.now()).toISOString();
  try {
    const v = await deps.service.compliance.lookup(address, { maxLimiterWaitMs: 2_000 });
    const extra = [v.severity, v.reason_code].filter(Boolean).join(", ");
    return { line: `${v.category}${v.blocked ? " (blocked)" : ""}${extra ? ` — ${extra}` : ""}`, readAt };
  } catch {
    return { line: "could not be read when this certificate was made", readAt };
  }
}

const scaleOf = (e: ScreeningEvidence): string => `${e.scale.min}–${e.scale.max}`;

function screeningLines(e: ScreeningEvidence): string[] {
  return [
    `Provider: ${e.provider} (network ${e.network})`,
    `Risk score (risk.score): ${e.score ?? "none"} on the provider's scale ${scaleOf(e)} (risk.scale)`,
    `Risk level (risk.level): ${e.level}`,
    `Sanctioned itself (sanctions.self): ${e.sanctionsSelf === null ? "not reported" : e.sanctionsSelf ? "yes" : "no"}`,
    `Top exposure categories: ${e.exposure.length === 0 ? "none" : e.exposure.map((x) => `${x.category} ${x.share}`).join(", ")}`,
    `Checked at: ${e.checkedAt ?? "not reported"}`,
    `Screening order (client_order_id): ${e.clientOrderId}`,
    `Asked by: ${e.askedBy}`,
  ];
}

async function buildCertificate(
  deps: CoreDeps,
  address: string,
  evidence: ScreeningEvidence,
  askedBy: string,
): Promise<{ pdf: Uint8Array; code: string; certified: Certified }> {
  const record = await caseOfAddress(deps.store, address);
  const deny = await denyList(deps, address);
  const certified: Certified = {
    v: 1,
    address,
    issuedAt: new Date(deps.now()).toISOString(),
    level: evidence.level,
    score: evidence.score,
    scale: scaleOf(evidence),
    clientOrderId: evidence.clientOrderId,
    rawSha256: evidence.rawSha256,
    caseId: record?.id ?? null,
    caseState: record?.state ?? null,
  };
  const verification = await issueCode(deps, certified);
  const now = deps.now();
  const sections: PdfSection[] = [
    { title: "Address", lines: [address, `Certificate made ${certified.issuedAt} for ${askedBy}`] },
    { title: "Last screening", lines: screeningLines(evidence) },
    { title: "Deny list", lines: [`Verdict: ${deny.line}`, `Read at: ${deny.readAt}`] },
    {
      title: "AML case",
      lines: record
        ? [`Case ${record.id}: ${stateOf(record)}`, ...record.timeline.map((ev) => eventLine(ev, now))]
        : ["No case was opened for this address."],
    },
    {
      title: "Evidence",
      lines: [`SHA-256 of the service's raw screening reply: ${evidence.rawSha256 ?? "not kept"}`],
    },
  ];
  const footer = `Verification code: ${verification} — check it with the bot's verify command.`;
  const pdf = await buildPdf(`AML certificate · ${address}`, sections, footer);
  return { pdf, code: verification, certified };
}

export const certificateCommand: CommandDefinition = {
  verb: "certificate",
  role: "viewer",
  summary: "a PDF of an address's screening, verdict and case, with a code",
  usage: "certificate <address>",
  example: "certificate TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  async run(ctx) {
    const { deps, args, invocation } = ctx;
    if (args.length !== 1) return errorReply("Usage: certificate <address> — one TRON address.");
    const parsed = parseTronAddress(args[0] ?? "");
    if (!parsed.ok) return errorReply(parsed.error);
    const address = parsed.value;
    const evidence = await readEvidence(deps, address);
    if (evidence === null) return neverScreened(deps, ctx, address);
    const askedBy = `${nameOf(invocation.actor)} (${actorKey(invocation.actor)})`;
    const built = await buildCertificate(deps, address, evidence, askedBy);
    const line = `AML certificate for ${address}: level ${evidence.level}, screened ${evidence.checkedAt ?? "?"}. Code ${built.code}`;
    return publicReply(line, [
      text("AML certificate for ", code(address), `: level ${evidence.level}.`),
      text("Verification code: ", code(built.code)),
      file({
        filename: `certificate-${address}.pdf`,
        contentType: "application/pdf",
        bytes: built.pdf,
        title: `AML certificate ${address}`,
      }),
      context("Anyone can check the code with ", code(`verify ${built.code}`), "."),
    ]);
  },
};

export const verifyCommand: CommandDefinition = {
  verb: "verify",
  role: "viewer",
  summary: "check a certificate's code",
  usage: "verify <code>",
  // Runnable as it is: a well-formed code that no certificate has (it answers "Not genuine").
  example: "verify OPS-CERT-AAAAAAAAAA-AAAAAAAAAAAAAAAAAAAAAAAAAA",
  async run({ deps, args }): Promise<Reply> {
    if (args.length !== 1) return errorReply("Usage: verify <code> — the OPS-CERT-… code of a certificate.");
    const result = await verifyCode(deps, args[0] ?? "");
    // Not even a code: bad input, one private line; a code that fails is news for the conversation.
    if (!result.genuine && result.malformed) return errorReply(`Not genuine: ${result.why}.`);
    if (!result.genuine) {
      const line = `Not genuine: ${result.why}.`;
      return publicReply(line, [text(line)]);
    }
    const c = result.certified;
    const line = `Genuine: certifies ${c.address} at ${c.issuedAt}: risk level ${c.level} (score ${c.score ?? "none"} on ${c.scale}), screening ${c.clientOrderId}${c.caseId ? `, case ${c.caseId} ${c.caseState}` : ""}.`;
    return publicReply(line, [
      text(line),
      context(
        `Raw screening reply SHA-256: ${c.rawSha256 ?? "not kept"} · issued ${formatEpoch(Date.parse(c.issuedAt))}`,
      ),
    ]);
  },
};
