import { checkEnergyRange, energyOrderRoute, parseEnergyAmount } from "../parse/amount.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { parseTronAddress, TRON_ADDRESS_PATTERN } from "../parse/tron-address.js";

export interface EnergyArgs {
  address: string;
  amount: number;
  /** order5m up to 650,000 energy, the orchestrator above. */
  route: "order5m" | "orchestrator";
}

const USAGE = "use energy <address> <amount>, e.g. energy TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b 65k";

/** `energy 65k <address>`, typed as a payout run is: the amount first, then one address. */
const amountFirst = (args: readonly string[]): boolean =>
  args.length >= 2 &&
  !TRON_ADDRESS_PATTERN.test(args[0] ?? "") &&
  parseEnergyAmount(args[0] ?? "").ok &&
  /^T\w{20,}$/.test(args[1] ?? "");

/** `energy <address> <amount>` (or `energy <amount> <address>`): a valid TRON address and an amount in the accepted range. */
export function parseEnergyArgs(args: readonly string[]): ParseResult<EnergyArgs> {
  const [addressText, amountText, ...extra] = amountFirst(args) ? [args[1], args[0], ...args.slice(2)] : args;
  if (addressText === undefined) return fail(`no address and amount given: ${USAGE}`);
  if (amountText === undefined) return fail(`no amount given: ${USAGE}`);
  if (extra.length > 0)
    return fail(`too many words after energy (${args.length}), write the amount without spaces: ${USAGE}`);
  const address = parseTronAddress(addressText);
  if (!address.ok) return address;
  const parsed = parseEnergyAmount(amountText);
  if (!parsed.ok) return parsed;
  const amount = checkEnergyRange(parsed.value);
  if (!amount.ok) return amount;
  return ok({ address: address.value, amount: amount.value, route: energyOrderRoute(amount.value) });
}
