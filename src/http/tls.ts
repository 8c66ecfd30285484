import { createPrivateKey, X509Certificate } from "node:crypto";
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { errnoOf } from "../core/errno.ts";
import { IndxError } from "../core/errors.ts";

/** A certificate and its key, checked to belong together. */
export interface TlsPair {
  cert: string;
  key: string;
  /** SHA-256 fingerprint of the leaf certificate, as `openssl x509 -fingerprint -sha256` prints it. */
  fingerprint: string;
  /** When the leaf certificate expires (ISO 8601). */
  notAfter: string;
}

export interface TlsFiles {
  cert: string;
  key: string;
}

/** Certificate files are small; a larger file is not one (and is not read whole into memory). */
const MAX_PEM_BYTES = 1024 * 1024;

/** server.tls_cert and server.tls_key: both or neither. */
export function tlsFilesOf(cert: string | null, key: string | null): TlsFiles | null {
  if (!cert && !key) return null;
  if (!cert || !key)
    throw new IndxError(
      "validation_failed",
      `Set both server.tls_cert and server.tls_key for HTTPS (only ${cert ? "server.tls_cert" : "server.tls_key"} is set).`,
      {
        reason: "tls",
      },
    );
  return { cert, key };
}

/**
 * Reads and checks a pair: both PEM, the certificate parses, the key is the certificate's. Errors
 * name the config key and the file's name, never its folder (docs/contracts.md, Privacy and safety).
 */
export function loadTlsPair(files: TlsFiles): TlsPair {
  const cert = readPem(files.cert, "server.tls_cert");
  const key = readPem(files.key, "server.tls_key");
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw tlsError(`server.tls_cert (${basename(files.cert)}) is not a PEM certificate.`);
  }
  let matches: boolean;
  try {
    matches = x509.checkPrivateKey(createPrivateKey(key));
  } catch {
    throw tlsError(`server.tls_key (${basename(files.key)}) is not a PEM private key (an encrypted key is not supported).`);
  }
  if (!matches) throw tlsError(`server.tls_key (${basename(files.key)}) is not the key of server.tls_cert (${basename(files.cert)}).`);
  return { cert, key, fingerprint: x509.fingerprint256, notAfter: new Date(x509.validTo).toISOString() };
}

function readPem(path: string, configKey: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = errnoOf(err);
    const why = code === "ENOENT" ? "does not exist" : code === "EACCES" ? "is not readable by this user" : `cannot be read (${code ?? "error"})`;
    throw tlsError(`${configKey} (${basename(path)}) ${why}.`);
  }
  if (bytes.length > MAX_PEM_BYTES) throw tlsError(`${configKey} (${basename(path)}) is larger than ${MAX_PEM_BYTES} bytes: not a PEM file.`);
  return bytes.toString("utf8");
}

const tlsError = (message: string) => new IndxError("validation_failed", message, { reason: "tls" });

/** How long file events must settle before the pair is read again (a renewal writes two files). */
const SETTLE_MS = 300;

/**
 * Watches the folders of the certificate and key (a renewal replaces files by rename, and
 * Kubernetes swaps a symlinked folder, so the files themselves are not watched) and calls
 * `onChange` with a new, checked pair once the events settle and the fingerprint or key differs.
 * A pair that does not load is reported through `onError`; the caller keeps serving the old one.
 */
export function watchTlsPair(files: TlsFiles, current: TlsPair, onChange: (pair: TlsPair) => void, onError: (err: IndxError) => void): () => void {
  let last = current;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const names = new Set([basename(files.cert), basename(files.key)]);
  const check = () => {
    timer = null;
    let next: TlsPair;
    try {
      next = loadTlsPair(files);
    } catch (err) {
      onError(err instanceof IndxError ? err : tlsError("The TLS pair could not be read."));
      return;
    }
    if (next.cert === last.cert && next.key === last.key) return;
    last = next;
    onChange(next);
  };
  const onEvent = (_event: string, name: string | Buffer | null) => {
    // Events on other files of a shared folder (/etc/ssl) are ignored; a null name or a folder swap (..data) is not.
    const file = name === null ? null : String(name);
    if (file !== null && !names.has(file) && !file.startsWith("..")) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(check, SETTLE_MS);
  };
  const watchers: FSWatcher[] = [];
  for (const dir of new Set([dirname(files.cert), dirname(files.key)])) {
    try {
      watchers.push(watch(dir, { persistent: false }, onEvent));
    } catch (err) {
      onError(tlsError(`Cannot watch the folder of the TLS files for renewals (${errnoOf(err) ?? "error"}): restart indx serve after renewing.`));
    }
  }
  return () => {
    if (timer) clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
