import { isIP } from "node:net";

/**
 * The Host Mode callback URL rule: public http or https, at most 2048 characters; localhost,
 * private, link-local, reserved and multicast targets rejected. Host names that are not IP
 * literals count as public unless they are localhost or end in .localhost/.internal/.local
 * (the project's convention: the sandbox resolves nothing).
 */

const CALLBACK_URL_MAX = 2048;

const PRIVATE_NAMES = /(^|\.)(localhost|internal|local)$/i;

function v4Numbers(ip: string): number[] {
  return ip.split(".").map(Number);
}

/** True for 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.0.2/24, 192.168/16, 198.18/15, 198.51.100/24, 203.0.113/24, 224/4 and above. */
function isNonPublicV4(ip: string): boolean {
  const [a = 0, b = 0, c = 0] = v4Numbers(ip);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  );
}

function isNonPublicV6(ip: string): boolean {
  const lower = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1]) return isNonPublicV4(mapped[1]);
  if (lower === "::" || lower === "::1") return true;
  const first = Number.parseInt(lower.split(":")[0] || "0", 16);
  return (
    (first & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (first & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (first & 0xff00) === 0xff00 || // multicast ff00::/8
    lower.startsWith("2001:db8:") || // documentation
    lower.startsWith("::ffff:") // other mapped forms
  );
}

export function isAcceptableCallbackUrl(raw: string): boolean {
  if (raw.length === 0 || raw.length > CALLBACK_URL_MAX) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host.length === 0) return false;
  const family = isIP(host);
  if (family === 4) return !isNonPublicV4(host);
  if (family === 6) return !isNonPublicV6(host);
  return !PRIVATE_NAMES.test(host.replace(/\.$/, ""));
}
