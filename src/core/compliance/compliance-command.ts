import type { ComplianceVerdict } from "../../service/compliance.js";
import { isServiceError } from "../../service/errors.js";
import type { CommandContext, CommandDefinition } from "../command.js";
import { UserError } from "../errors.js";
import { errorReply, type Reply } from "../reply.js";
import { type ComplianceArgs, parseComplianceArgs } from "./compliance-args.js";
import { type ComplianceRow, renderBatch, renderVerdict } from "./compliance-render.js";

/**
 * `compliance <address> [address …]`: deny-list verdicts, free, for viewers. One address uses the
 * open lookup; several use the batch, in the order given. Addresses that fail the local TRON
 * check (a typo in the checksum passes the service's pattern and would come back "clean") are
 * flagged in place and not sent.
 */
export const complianceCommand: CommandDefinition = {
  verb: "compliance",
  role: "viewer",
  summary: "deny-list verdicts (free; up to 1000 at once)",
  usage: "compliance <address> [address …]",
  example: "compliance TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  async run(ctx) {
    const parsed = parseComplianceArgs(ctx.args);
    if (!parsed.ok) return errorReply(parsed.error);
    const { addresses, invalid } = parsed.value;
    const [only] = addresses;
    if (addresses.length === 1 && only !== undefined) {
      const bad = invalid[0];
      if (bad) return errorReply(bad.error);
      return renderVerdict(await guarded(() => ctx.deps.service.compliance.lookup(only)));
    }
    return batch(ctx, parsed.value);
  },
};

async function batch(ctx: CommandContext, args: ComplianceArgs): Promise<Reply> {
  const localErrors = new Map(args.invalid.map((i) => [i.address, i.error]));
  const sent = args.addresses.filter((a) => !localErrors.has(a));
  const verdicts = new Map<string, ComplianceVerdict>();
  let checkedAt: string | undefined;
  if (sent.length > 0) {
    const result = await guarded(() => ctx.deps.service.compliance.batch(sent));
    checkedAt = result.checked_at;
    // Results keep the request order (the spec); if the count differs, match them by address.
    const byIndex = result.results.length === sent.length;
    result.results.forEach((verdict, i) => {
      verdicts.set(byIndex ? (sent[i] ?? verdict.address) : verdict.address, verdict);
    });
  }
  const rows: ComplianceRow[] = args.addresses.map((address) => {
    const localError = localErrors.get(address);
    if (localError !== undefined) return { address, localError };
    const verdict = verdicts.get(address);
    return verdict ? { address, verdict } : { address, localError: "the service returned no verdict for it" };
  });
  return renderBatch(rows, checkedAt);
}

/** The service's compliance codes as lines; anything else goes to the core's generic line. */
async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isServiceError(error)) throw error;
    const line = complianceLine(error.code, error.endpoint, error.message);
    throw line === undefined
      ? error
      : new UserError(line, { code: `compliance_${error.code}`, cause: error });
  }
}

function complianceLine(
  code: number | string | undefined,
  endpoint: string,
  message: string,
): string | undefined {
  if (code === 5003) {
    return "The deny-list lookup is temporarily unavailable (code 5003: its cache backend is down); try again in a minute.";
  }
  if (code === 1001) {
    return endpoint === "compliance.lookup"
      ? "The service says this is not a valid TRON address (code 1001): a TRON address starts with T and has 34 characters."
      : `The service refused the batch (code 1001): ${message.slice(0, 160)}.`;
  }
  return undefined;
}
