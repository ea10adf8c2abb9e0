import { BlockList, isIP } from "node:net";

/**
 * The service's URL rules for webhook endpoints: https only, no credentials, at most 2048 characters,
 * and a host that is public. The sandbox resolves nothing: an IP literal is checked against the
 * non-routable ranges, and a host name counts as public unless it is `localhost` or ends in
 * `.localhost`, `.internal` or `.local` (the convention shared by every helper).
 */
const MAX_URL_LENGTH = 2048;

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

// IPv4 rules also match IPv4-mapped IPv6 (::ffff:a.b.c.d): BlockList maps them itself.
const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(net, prefix, "ipv6");
}

const PRIVATE_NAME = /(^|\.)(localhost|internal|local)$/;

/** True when `host` (as in `URL.hostname`, IPv6 in brackets) may receive traffic from the service. */
function isPublicHost(host: string): boolean {
  const bare = host
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.$/, "");
  const family = isIP(bare);
  if (family === 4) return !blocked.check(bare, "ipv4");
  if (family === 6) return !blocked.check(bare, "ipv6");
  return bare.length > 0 && !PRIVATE_NAME.test(bare);
}

export function checkPublicUrl(raw: unknown, options: { allowHttp?: boolean } = {}): UrlCheck {
  if (typeof raw !== "string" || raw.length === 0) return { ok: false, reason: "url is required" };
  if (raw.length > MAX_URL_LENGTH)
    return { ok: false, reason: `url longer than ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "url is not a valid absolute URL" };
  }
  const schemeOk = url.protocol === "https:" || (options.allowHttp === true && url.protocol === "http:");
  if (!schemeOk) return { ok: false, reason: options.allowHttp ? "http(s):// only" : "https:// only" };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "credentials not allowed" };
  if (!isPublicHost(url.hostname)) return { ok: false, reason: "resolved address not public" };
  return { ok: true, url };
}
