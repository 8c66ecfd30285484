import { createHash, X509Certificate } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";

/** openssl on PATH, or null: the TLS tests skip without it (a clean CI machine may lack it). */
export const OPENSSL = Bun.which("openssl");

/** A self-signed certificate for 127.0.0.1 and localhost, made by openssl in `dir` as `<name>.crt` and `<name>.key`. */
export function makeCert(dir: string, name: string): { cert: string; key: string; fingerprint: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const r = Bun.spawnSync(
    [
      OPENSSL ?? "openssl",
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "2",
      "-subj",
      `/CN=indx test ${name}`,
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ],
    { stderr: "pipe", stdout: "pipe" },
  );
  if (r.exitCode !== 0) throw new Error(`openssl failed: ${r.stderr.toString()}`);
  return { cert, key, fingerprint: new X509Certificate(readFileSync(cert)).fingerprint256 };
}

/** The SHA-256 fingerprint of the certificate a TLS server on 127.0.0.1:`port` presents. */
export function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on("error", reject);
  });
}

/**
 * A test certificate authority and a certificate for 127.0.0.1 and localhost that it signed, made
 * by openssl in `dir`: what a person with a private CA (or mkcert) serves. `spki` is the base64
 * SHA-256 of the served certificate's public key, the form Chromium's
 * --ignore-certificate-errors-spki-list takes, so a browser trusts this one key and nothing else.
 */
export function makeCaSignedCert(dir: string): { ca: string; cert: string; key: string; spki: string } {
  const ca = join(dir, "test-ca.crt");
  const caKey = join(dir, "test-ca.key");
  const cert = join(dir, "server.crt");
  const key = join(dir, "server.key");
  const csr = join(dir, "server.csr");
  const ext = join(dir, "server.ext");
  writeFileSync(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  const steps = [
    [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      caKey,
      "-out",
      ca,
      "-days",
      "2",
      "-subj",
      "/CN=indx test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ],
    ["req", ...ec, "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
    ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-out", cert, "-days", "2", "-extfile", ext],
  ];
  for (const args of steps) {
    const r = Bun.spawnSync([OPENSSL ?? "openssl", ...args], { stderr: "pipe", stdout: "pipe" });
    if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString()}`);
  }
  const der = new X509Certificate(readFileSync(cert)).publicKey.export({ type: "spki", format: "der" });
  return { ca, cert, key, spki: createHash("sha256").update(der).digest("base64") };
}
