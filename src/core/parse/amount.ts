import { echo, formatCount, invisibleNote } from "./echo.js";
import { fail, ok, type ParseResult } from "./result.js";

/** POST /apiv2/order5m: `amount` 61,000 to 650,000 energy. */
export const ORDER5M_MIN_ENERGY = 61_000;
export const ORDER5M_MAX_ENERGY = 650_000;
/** POST /apiv2/orchestrator: 61,000 to 50,000,000 energy per address (and per order in total). */
export const ORCHESTRATOR_MIN_ENERGY_PER_ADDRESS = 61_000;
export const ORCHESTRATOR_MAX_ENERGY_PER_ADDRESS = 50_000_000;
/**
 * What the `energy` command accepts: one 5-minute order, or more through the orchestrator.
 * @alias (knip) named on purpose: order5m's lower bound and the orchestrator's upper bound.
 */
export const ENERGY_ORDER_MIN_ENERGY = ORDER5M_MIN_ENERGY;
/** @alias */
export const ENERGY_ORDER_MAX_ENERGY = ORCHESTRATOR_MAX_ENERGY_PER_ADDRESS;

const ACCEPTED = "use a whole number like 65000, 65k or 1.2m";
// Digits with optional thousands separators (, or _ in groups of three), an optional fraction and
// an optional k/m suffix. Groups are checked so that "1,5m" (a decimal comma) is refused, not read as 15m.
const AMOUNT = /^(\d{1,3}(?:[,_]\d{3})+|\d+)(?:\.(\d+))?([km])?$/i;
const MULTIPLIERS: Readonly<Record<string, bigint>> = { "": 1n, k: 1_000n, m: 1_000_000n };

/** An energy amount as people type it: 65000, 65,000, 65_000, 65k, 131k, 1.2m, 1m. */
export function parseEnergyAmount(text: string): ParseResult<number> {
  const input = text.trim();
  if (input === "") return fail(`no amount given: ${ACCEPTED}`);
  if (/^-\s*\d/.test(input)) return fail(`${echo(input)} is negative: ${ACCEPTED}`);
  const match = AMOUNT.exec(input);
  if (match === null) return fail(`${echo(input)} is not an amount${invisibleNote(input)}: ${ACCEPTED}`);
  const [, whole = "", fraction = "", suffix = ""] = match;
  const multiplier = MULTIPLIERS[suffix.toLowerCase()] ?? 1n;
  // BigInt keeps "1.2m" exact: no float ever touches the amount.
  const scaled = BigInt(whole.replace(/[,_]/g, "") + fraction) * multiplier;
  const divisor = 10n ** BigInt(fraction.length);
  if (scaled % divisor !== 0n) return fail(`${echo(input)} is not a whole number of energy: ${ACCEPTED}`);
  const amount = scaled / divisor;
  if (amount === 0n) return fail(`${echo(input)} is zero: ${ACCEPTED}`);
  if (amount > BigInt(Number.MAX_SAFE_INTEGER)) return fail(`${echo(input)} is far too large: ${ACCEPTED}`);
  return ok(Number(amount));
}

/** The range the `energy` command accepts, with a line that names it. */
export function checkEnergyRange(amount: number): ParseResult<number> {
  const range = `energy orders take ${formatCount(ENERGY_ORDER_MIN_ENERGY)} to ${formatCount(ENERGY_ORDER_MAX_ENERGY)} energy (${short(ENERGY_ORDER_MIN_ENERGY)} to ${short(ENERGY_ORDER_MAX_ENERGY)})`;
  if (!Number.isSafeInteger(amount)) return fail(`${amount} is not a whole number of energy: ${range}`);
  if (amount < ENERGY_ORDER_MIN_ENERGY)
    return fail(`${formatCount(amount)} energy is below the minimum: ${range}`);
  if (amount > ENERGY_ORDER_MAX_ENERGY)
    return fail(`${formatCount(amount)} energy is above the maximum: ${range}`);
  return ok(amount);
}

/** 61000 → "61k", 50000000 → "50m": the short forms the parser accepts. */
const short = (n: number): string => (n % 1_000_000 === 0 ? `${n / 1_000_000}m` : `${n / 1_000}k`);

/** One 5-minute order when it fits, otherwise the orchestrator (which splits above 1,000,000). */
export const energyOrderRoute = (amount: number): "order5m" | "orchestrator" =>
  amount <= ORDER5M_MAX_ENERGY ? "order5m" : "orchestrator";
