import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A test certificate authority and a certificate it signed for 127.0.0.1 and localhost, made once
 * per run with openssl, for the fakes that must be https (the Microsoft side of Teams). The CA is
 * trusted the way the bot trusts one in production: NODE_EXTRA_CA_CERTS, which the test processes
 * (forked after this) read at their start. The fakes read the server certificate from
 * OPSBOT_TEST_TLS_DIR (`server.key`, `server.crt`).
 */
export default function setup(): void {
  // Left in place (a few KB): a child process still starting when the run ends reads
  // NODE_EXTRA_CA_CERTS, and a file gone under it is a warning on its stderr.
  const dir = mkdtempSync(join(tmpdir(), "opsbot-tls-"));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=opsbot test CA",
    "-keyout",
    at("ca.key"),
    "-out",
    at("ca.crt"),
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    at("server.key"),
    "-out",
    at("server.csr"),
  );
  writeFileSync(at("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  openssl(
    "x509",
    "-req",
    "-in",
    at("server.csr"),
    "-CA",
    at("ca.crt"),
    "-CAkey",
    at("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-out",
    at("server.crt"),
    "-extfile",
    at("server.ext"),
  );
  const given = process.env.NODE_EXTRA_CA_CERTS;
  const bundle = [
    given && existsSync(given) ? readFileSync(given, "utf8") : "",
    readFileSync(at("ca.crt"), "utf8"),
  ];
  writeFileSync(at("bundle.crt"), bundle.join("\n"));
  process.env.NODE_EXTRA_CA_CERTS = at("bundle.crt");
  process.env.OPSBOT_TEST_TLS_DIR = dir;
}
