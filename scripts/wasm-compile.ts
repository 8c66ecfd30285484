/** WAT → wasm bytes (base64) with wabt, the WebAssembly Binary Toolkit's own JS build. */
export async function compileDotWat(wat: string): Promise<string> {
  const wabt = await (await import("wabt")).default();
  const module = wabt.parseWat("dot.wat", wat, { simd: true });
  try {
    const { buffer } = module.toBinary({});
    return Buffer.from(buffer).toString("base64");
  } finally {
    module.destroy();
  }
}
