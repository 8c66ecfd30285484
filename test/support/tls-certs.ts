import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
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
