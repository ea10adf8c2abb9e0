import type { CommandDefinition } from "../command.js";
import { context, errorReply, publicReply, type Reply, text } from "../reply.js";
import { verdictLine, verifyAnyCode } from "./verify-code.js";

/** `verify <code>`: whether a certificate's or an audit export's code is genuine, and what it certifies. */
export const verifyCommand: CommandDefinition = {
  verb: "verify",
  role: "viewer",
  summary: "check a certificate's or an audit export's code",
  usage: "verify <code>",
  // Runnable as it is: a well-formed code that no certificate has (it answers "Not genuine").
  example: "verify OPS-CERT-AAAAAAAAAA-AAAAAAAAAAAAAAAAAAAAAAAAAA",
  async run({ deps, args }): Promise<Reply> {
    if (args.length !== 1)
      return errorReply(
        "Usage: verify <code> — the OPS-CERT-… or OPS-AUDIT-… code of a certificate or an export.",
      );
    const verdict = await verifyAnyCode(deps, args[0] ?? "");
    const line = verdictLine(verdict);
    // Not even a code: bad input, one private line; a code that fails is news for the conversation.
    if (!verdict.genuine && /^it is not (a|an) /.test(verdict.why)) return errorReply(line);
    const sha = verdict.genuine && verdict.kind === "certificate" ? verdict.certified.rawSha256 : undefined;
    return publicReply(line, [
      text(line),
      ...(sha !== undefined ? [context(`Raw screening reply SHA-256: ${sha ?? "not kept"}`)] : []),
    ]);
  },
};
