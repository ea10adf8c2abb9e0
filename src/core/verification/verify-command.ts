import type { CommandDefinition } from "../command.js";
import { context, errorReply, publicReply, type Reply, text } from "../reply.js";
import { verdictLine, verifyAnyCode } from "./verify-code.js";

/** `verify <code>`: whether a certificate's or an audit export's code is genuine, and what it certifies. */
export const verifyCommand: CommandDefinition = {
  verb: "verify",
  role: "viewer",
  summary: "check a certificate's or an audit export's code",
  usage: "verify <code>",
  example: "verify OPS-CERT-…",
  async run({ deps, args }): Promise<Reply> {
    if (args.length !== 1)
      return errorReply(
        "Usage: verify <code> — the OPS-CERT-… or OPS-AUDIT-… code of a certificate or an export.",
      );
    const verdict = await verifyAnyCode(deps, args[0] ?? "");
    const line = verdictLine(verdict);
    const sha = verdict.genuine && verdict.kind === "certificate" ? verdict.certified.rawSha256 : undefined;
    return publicReply(line, [
      text(line),
      ...(sha !== undefined ? [context(`Raw screening reply SHA-256: ${sha ?? "not kept"}`)] : []),
    ]);
  },
};
