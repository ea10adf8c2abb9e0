import { formatCount } from "../parse/echo.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { parseTronAddress } from "../parse/tron-address.js";

/** POST /apiv2/compliance/batch: at most 1000 addresses per request. */
export const COMPLIANCE_MAX_ADDRESSES = 1000;

export interface ComplianceArgs {
  /** Every distinct address, in the order given: invalid ones included, the batch flags them. */
  addresses: string[];
  /** The addresses that fail the local TRON check, each with the line explaining why. */
  invalid: { address: string; error: string }[];
}

const USAGE = "use compliance <address> [address …], separated by spaces or commas";

/** `compliance <address> [address …]`: distinct addresses in order, with the locally invalid ones marked. */
export function parseComplianceArgs(args: readonly string[]): ParseResult<ComplianceArgs> {
  const words = args.flatMap((arg) => arg.split(/[\s,]+/u)).filter((word) => word !== "");
  const addresses = [...new Set(words)];
  if (addresses.length === 0) return fail(`no address given: ${USAGE}`);
  if (addresses.length > COMPLIANCE_MAX_ADDRESSES) {
    return fail(
      `${formatCount(addresses.length)} different addresses given: one check takes at most ${formatCount(COMPLIANCE_MAX_ADDRESSES)}, send the rest in another message`,
    );
  }
  const invalid: ComplianceArgs["invalid"] = [];
  for (const address of addresses) {
    const parsed = parseTronAddress(address);
    if (!parsed.ok) invalid.push({ address, error: parsed.error });
  }
  return ok({ addresses, invalid });
}
