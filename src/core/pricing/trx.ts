import Big from "big.js";
import { SUN_PER_TRX } from "../../service/pricing.js";

/**
 * TRX and SUN in the core: the one SUN_PER_TRX (the spec's `units_meta`: sun to trx 1,000,000, as
 * the service client declares it) and the one TRX formatter. Money is integer SUN or exact
 * decimal strings (big.js); no float ever touches it.
 */
export { SUN_PER_TRX };

/** A TRX decimal string as integer SUN; a fraction of a SUN counts as a whole one (caps err safe). */
export function trxToSun(trx: string): Big {
  const sun = new Big(trx).times(SUN_PER_TRX).round(0, Big.roundUp);
  if (sun.lt(0)) throw new RangeError(`negative TRX amount: ${trx}`);
  return sun;
}

/** Integer SUN as a TRX decimal string without exponent: 1500000 → "1.5". */
export const sunToTrx = (sun: Big | number | string): string => new Big(sun).div(SUN_PER_TRX).toFixed();
