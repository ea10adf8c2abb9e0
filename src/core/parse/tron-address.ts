import { decodeBase58Check } from "./address-codecs.js";
import { describeChar, echo } from "./echo.js";
import { fail, ok, type ParseResult } from "./result.js";

/** The spec's format rule for TRON addresses (Host Mode, compliance, reports). */
export const TRON_ADDRESS_PATTERN = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
export const TRON_ADDRESS_CHARS = 34;
/** Mainnet version byte: what makes every mainnet address start with T. */
const TRON_VERSION_BYTE = 0x41;
/** Version byte + 20-byte account hash (the 4 checksum bytes are removed by the decoder). */
const TRON_PAYLOAD_BYTES = 21;

const ACCEPTED = "a TRON address starts with T and has 34 characters";
const BASE58_CHAR = /[1-9A-HJ-NP-Za-km-z]/;
const PRINTABLE_ASCII = /^[\x21-\x7e]$/;

/**
 * A TRON mainnet address: the spec's pattern AND a valid base58check checksum with version 0x41.
 * The pattern alone accepts typos; the service rejects them (reports answer 400 for a failed
 * checksum), so we catch them before anything is ordered.
 */
export function parseTronAddress(text: string): ParseResult<string> {
  const address = text.trim();
  if (address === "") return fail(`no TRON address given: ${ACCEPTED}`);
  const shape = shapeProblem(address);
  if (shape !== undefined) return fail(`${echo(address)} is not a TRON address (${shape}): ${ACCEPTED}`);
  const payload = decodeBase58Check(address);
  if (payload === undefined) {
    return fail(
      `${echo(address)} is not a valid TRON address (checksum failed, look for a typo): ${ACCEPTED}`,
    );
  }
  if (payload.length !== TRON_PAYLOAD_BYTES || payload[0] !== TRON_VERSION_BYTE) {
    return fail(`${echo(address)} is not a valid TRON address (not a mainnet address): ${ACCEPTED}`);
  }
  return ok(address);
}

export const isTronAddress = (text: string): boolean => parseTronAddress(text).ok;

/**
 * Why the text cannot be a TRON address at all. Foreign and invisible characters are named first:
 * a Cyrillic "Т" or a zero-width space pasted from a web page looks right and is the hardest to see.
 */
function shapeProblem(address: string): string | undefined {
  const foreign = Array.from(address).find((char) => !PRINTABLE_ASCII.test(char));
  if (foreign !== undefined) return `it contains ${describeChar(foreign)}`;
  if (!address.startsWith("T")) return "it does not start with T";
  const notBase58 = Array.from(address).find((char) => !BASE58_CHAR.test(char));
  if (notBase58 !== undefined) {
    return `it contains ${describeChar(notBase58)}; addresses never use 0, O, I, l or punctuation`;
  }
  if (address.length !== TRON_ADDRESS_CHARS) return `it has ${address.length} characters`;
  return undefined;
}
